#!/usr/bin/python3
# ===- vad-stream.py - a VAD model's stream through strata-run -------------===#
#
# Usage: /usr/bin/python3 benchmarks/wild/vad-stream.py MODEL_DIR PROGRAM OUT_JSON
#        [--strata-run BIN] [--timeout S] [--frozen NAME,...]
# Runs the chunks of MODEL_DIR/stream/ (make-inputs.py: speech between two
# half seconds of near silence) in order through `strata-run PROGRAM`, one
# process per chunk, the state outputs of each chunk (outputs 1..) fed back
# as the state inputs of the next; writes OUT_JSON: { probs: [...] } (output
# 0 per chunk) or { error: "..." } at the first chunk that fails.
# report.py judges it: speech probability high during speech, low in silence,
# and close to ONNX Runtime's own stream (ort-ref.mjs: ort-stream.json).
# ===----------------------------------------------------------------------===#
import json
import os
import shutil
import subprocess
import sys
import tempfile

import onnx
from onnx import numpy_helper


def main():
    args = sys.argv[1:]
    run_bin = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build', 'bin', 'strata-run')
    limit = 60
    if '--strata-run' in args:
        i = args.index('--strata-run'); run_bin = args[i + 1]; del args[i:i + 2]
    frozen = set()
    if '--frozen' in args:
        i = args.index('--frozen'); frozen = set(filter(None, args[i + 1].split(','))); del args[i:i + 2]
    if '--timeout' in args:
        i = args.index('--timeout'); limit = float(args[i + 1]); del args[i:i + 2]
    mdir, program, out_json = args
    sdir = os.path.join(mdir, 'stream')
    meta = json.load(open(os.path.join(sdir, 'meta.json')))
    current = {name: os.path.join(sdir, f'init_{name}.pb') for name in meta['inputs'][1:]}
    tmp = tempfile.mkdtemp()
    probs, result = [], {}
    try:
        for i in range(meta['chunks']):
            current[meta['primary']] = os.path.join(sdir, f'chunk_{i:04d}.pb')
            odir = os.path.join(tmp, str(i % 2))      # this chunk's outputs; the last one's stay
            shutil.rmtree(odir, ignore_errors=True)
            os.makedirs(odir)
            cmd = [run_bin, program, '--threads', '1', '--output-dir', odir]
            for name in meta['inputs']:
                if name not in frozen:         # compiled in with --input-value
                    cmd += ['--input', current[name]]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
            if p.returncode != 0:
                lines = (p.stderr + p.stdout).strip().splitlines()
                result['error'] = f'chunk {i}: ' + (lines[-1] if lines else f'exit {p.returncode}')
                break
            prob = numpy_helper.to_array(onnx.load_tensor(os.path.join(odir, 'output_0.pb')))
            probs.append(float(prob.ravel()[0]))
            for k, name in enumerate(meta['state_inputs']):
                current[name] = os.path.join(odir, f"output_{meta['state_outputs_from'] + k}.pb")
    except subprocess.TimeoutExpired:
        result['error'] = f'chunk {len(probs)}: timeout'
    finally:
        result['probs'] = probs
        with open(out_json, 'w') as f:
            json.dump(result, f)
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if 'error' in result else 0


if __name__ == '__main__':
    sys.exit(main())
