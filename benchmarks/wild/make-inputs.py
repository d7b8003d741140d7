#!/usr/bin/python3
# ===- make-inputs.py - realistic inputs for the wild-model corpus ---------===#
#
# Usage: /usr/bin/python3 benchmarks/wild/make-inputs.py [OUT] [ID...]
# For each model of benchmarks/wild/models.json fetched into OUT/<id>/ (by
# fetch.sh; OUT is build/wild by default), writes its inputs per the model's
# recipe as OUT/<id>/test_data_set_N/input_K.pb (ONNX TensorProto, named
# after the graph's inputs, in their order): the format of
# `strata-run --inputs DIR` and of ort-ref.mjs.
#
# Recipes (models.json "recipe.generator"):
#   vad     set 0: a chunk of espeak-ng speech (16 kHz, sox), set 1: near
#           silence; state inputs zero, sr = 16000; and stream/: the whole
#           utterance between two half seconds of near silence, in chunks
#           (the task check: vad-stream.py)
#   pcm     espeak-ng speech as int16-valued float samples (openWakeWord)
#   mel     a log-mel spectrogram of that speech, scaled as openWakeWord's
#           melspectrogram model does (dB / 10 + 2)
#   normal  N(0, std) features (wake-word heads; seeded)
#   image   a photo from python3-skimage's data, cropped, resized, laid out
#           NCHW or NHWC, normalised per recipe.norm
#   text    a line of text rendered with PIL (DejaVu Sans) on white
# Needs numpy, onnx, PIL, skimage (Debian: python3-pil python3-skimage),
# espeak-ng and sox.
# ===----------------------------------------------------------------------===#
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIMAGE_DATA = '/usr/lib/python3/dist-packages/skimage/data'
SPEECH_TEXT = ('Strata compiles trained models into small programs. '
               'Hello, this is a test of voice activity detection.')

_speech = None


def speech_16k():
    """espeak-ng speech, resampled to 16 kHz mono int16 by sox (cached)."""
    global _speech
    if _speech is None:
        tmp = tempfile.mkdtemp()
        try:
            raw = os.path.join(tmp, 'raw.wav')
            out = os.path.join(tmp, 'out.raw')
            subprocess.run(['espeak-ng', '-v', 'en-us', '-s', '150', '-w', raw,
                            SPEECH_TEXT], check=True)
            subprocess.run(['sox', raw, '-r', '16000', '-c', '1', '-b', '16',
                            '-e', 'signed-integer', '-t', 'raw', out], check=True)
            _speech = np.fromfile(out, dtype='<i2').astype(np.float32)
        finally:
            shutil.rmtree(tmp)
    return _speech


def loudest_chunk(pcm, n):
    """The n-sample window with the most energy (voiced speech)."""
    hop = max(n // 4, 1)
    starts = range(0, len(pcm) - n, hop)
    best = max(starts, key=lambda s: float(np.sum(pcm[s:s + n] ** 2)))
    return pcm[best:best + n]


def log_mel(pcm, frames, bins):
    """[frames, bins] log-mel features, openWakeWord's scale (dB/10 + 2)."""
    n_fft, hop, sr = 512, 160, 16000
    need = (frames - 1) * hop + n_fft
    x = loudest_chunk(pcm, need) if len(pcm) > need else np.pad(pcm, (0, need - len(pcm)))
    win = np.hanning(n_fft).astype(np.float32)
    spec = np.stack([np.abs(np.fft.rfft(x[i * hop:i * hop + n_fft] * win)) ** 2
                     for i in range(frames)])
    mel_pts = np.linspace(0, 2595 * np.log10(1 + (sr / 2) / 700), bins + 2)
    hz = 700 * (10 ** (mel_pts / 2595) - 1)
    fft_bins = np.floor((n_fft + 1) * hz / sr).astype(int)
    fb = np.zeros((bins, n_fft // 2 + 1), np.float32)
    for m in range(1, bins + 1):
        lo, c, hi = fft_bins[m - 1], fft_bins[m], fft_bins[m + 1]
        for k in range(lo, c):
            fb[m - 1, k] = (k - lo) / max(c - lo, 1)
        for k in range(c, hi):
            fb[m - 1, k] = (hi - k) / max(hi - c, 1)
    mel = spec @ fb.T
    return (10 * np.log10(np.maximum(mel, 1e-10)) / 10 + 2).astype(np.float32)


def load_photo(name, crop):
    from PIL import Image
    img = Image.open(os.path.join(SKIMAGE_DATA, name + '.png')).convert('RGB')
    if crop:
        img = img.crop(tuple(crop))
    return img


def normalise(x, norm):
    """x: float32 HxWxC in 0..255."""
    if norm == '0_1':
        return x / 255.0
    if norm == '0_255':
        return x
    if norm == '-1_1':
        return x / 127.5 - 1.0
    if norm == '127_128':
        return (x - 127.0) / 128.0
    if norm == '127.5_128':
        return (x - 127.5) / 128.0
    if norm == 'imgly':                       # @imgly: (x/255 - 0.5) / 1
        return x / 255.0 - 0.5
    if norm == 'imagenet':
        mean = np.array([0.485, 0.456, 0.406], np.float32)[:x.shape[2]]
        std = np.array([0.229, 0.224, 0.225], np.float32)[:x.shape[2]]
        return (x / 255.0 - mean) / std
    raise ValueError('unknown norm ' + norm)


def image_tensor(img, recipe):
    from PIL import Image
    h, w, c = recipe['height'], recipe['width'], recipe.get('channels', 3)
    img = img.resize((w, h), Image.BILINEAR)
    if c == 1:
        img = img.convert('L')
    x = np.asarray(img, dtype=np.float32)
    if x.ndim == 2:
        x = x[:, :, None]
    x = normalise(x, recipe.get('norm', '0_1'))
    if c == 4:                                # RGB + an opaque alpha channel
        alpha = normalise(np.full((h, w, 1), 255.0, np.float32), recipe.get('norm', '0_1'))
        x = np.concatenate([x, alpha], axis=2)
    x = x[None].astype(np.float32)            # 1xHxWxC
    if recipe.get('layout', 'NCHW') == 'NCHW':
        x = x.transpose(0, 3, 1, 2)
    return np.ascontiguousarray(x)


def text_image(recipe):
    from PIL import Image, ImageDraw, ImageFont
    h, w = recipe['height'], recipe['width']
    font_path = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'
    size = int(h * 0.7) if h <= 64 else int(h * 0.25)
    font = ImageFont.truetype(font_path, size)
    img = Image.new('RGB', (w, h), 'white')
    draw = ImageDraw.Draw(img)
    text = recipe.get('text', 'Strata')
    box = draw.textbbox((0, 0), text, font=font)
    tw, th = box[2] - box[0], box[3] - box[1]
    while tw > w * 0.95 and size > 8:         # shrink until the line fits
        size -= 2
        font = ImageFont.truetype(font_path, size)
        box = draw.textbbox((0, 0), text, font=font)
        tw, th = box[2] - box[0], box[3] - box[1]
    draw.text(((w - tw) // 2 - box[0], (h - th) // 2 - box[1]), text, fill='black', font=font)
    return image_tensor(img, dict(recipe, channels=3))


def graph_inputs(model):
    init = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in init]


def resolved_shape(value, pinned):
    if value.name in pinned:
        return [int(d) for d in pinned[value.name].split('x')]
    dims = value.type.tensor_type.shape.dim
    return [d.dim_value if d.dim_value > 0 else 1 for d in dims]


NP_TYPES = {1: np.float32, 10: np.float16, 7: np.int64, 6: np.int32, 9: np.bool_,
            2: np.uint8, 3: np.int8, 11: np.float64}


def make_sets(entry, model):
    """A list of test sets; each maps input name -> numpy array."""
    recipe, pinned = entry['recipe'], entry.get('input_shapes', {})
    gen = recipe['generator']
    inputs = graph_inputs(model)
    rng = np.random.default_rng(0)

    def fill(primary):
        """primary: the array of the first float input; the rest by role."""
        values = {}
        for i, v in enumerate(inputs):
            dtype = NP_TYPES[v.type.tensor_type.elem_type]
            shape = resolved_shape(v, pinned)
            if i == 0 or v.name == 'input':
                values[v.name] = primary.reshape(shape).astype(dtype)
            elif v.name == 'sr':
                values[v.name] = np.array(16000, dtype=dtype).reshape(shape)
            else:                              # recurrent state: zeros
                values[v.name] = np.zeros(shape, dtype=dtype)
        return values

    first = inputs[0]
    shape = resolved_shape(first, pinned)
    if gen == 'vad':
        n = recipe['samples'] + recipe.get('context', 0)
        speech = loudest_chunk(speech_16k(), n) / 32768.0
        silence = rng.normal(0, 1e-4, n).astype(np.float32)
        return [fill(speech), fill(silence)]
    if gen == 'pcm':
        pcm = loudest_chunk(speech_16k(), recipe['samples'])
        return [fill(pcm)]
    if gen == 'mel':
        return [fill(log_mel(speech_16k(), recipe['frames'], recipe['bins']))]
    if gen == 'normal':
        return [fill(rng.normal(0, recipe.get('std', 1.0), shape).astype(np.float32))]
    if gen == 'image':
        return [fill(image_tensor(load_photo(recipe.get('photo', 'astronaut'),
                                             recipe.get('crop')), recipe))]
    if gen == 'text':
        return [fill(text_image(recipe))]
    raise ValueError('unknown generator ' + gen)


def write_vad_stream(entry, model, d):
    """d/stream/: 0.5 s near silence, 3 s of espeak-ng speech, 0.5 s near
    silence, cut into chunks of recipe.samples (each preceded by
    recipe.context samples of the audio before it, as silero-vad's own
    wrapper feeds v5 and later), the zero initial state and sr, and
    meta.json: which input is which, where the speech is. vad-stream.py and
    ort-ref.mjs run the chunks in order, each chunk's state outputs feeding
    the next chunk's state inputs."""
    recipe, pinned = entry['recipe'], entry.get('input_shapes', {})
    n, ctx, sr = recipe['samples'], recipe.get('context', 0), 16000
    rng = np.random.default_rng(1)
    speech = speech_16k()[:3 * sr] / 32768.0   # the first 3 s of the utterance
    pad = sr // 2
    audio = np.concatenate([rng.normal(0, 1e-4, pad), speech, rng.normal(0, 1e-4, pad)]).astype(np.float32)
    sdir = os.path.join(d, 'stream')
    shutil.rmtree(sdir, ignore_errors=True)
    os.makedirs(sdir)
    inputs = graph_inputs(model)
    order = [v.name for v in inputs]
    state = [v.name for v in inputs[1:] if v.name != 'sr']
    for v in inputs[1:]:
        dtype = NP_TYPES[v.type.tensor_type.elem_type]
        shape = resolved_shape(v, pinned)
        value = (np.array(sr, dtype=dtype).reshape(shape) if v.name == 'sr'
                 else np.zeros(shape, dtype=dtype))
        with open(os.path.join(sdir, f'init_{v.name}.pb'), 'wb') as f:
            f.write(numpy_helper.from_array(value, v.name).SerializeToString())
    count = 0
    dtype = NP_TYPES[inputs[0].type.tensor_type.elem_type]
    for off in range(0, len(audio) - n + 1, n):
        chunk = np.zeros(n + ctx, np.float32)
        lo = max(0, off - ctx)
        chunk[n + ctx - (off + n - lo):] = audio[lo:off + n]
        t = numpy_helper.from_array(chunk.reshape(1, -1).astype(dtype), order[0])
        with open(os.path.join(sdir, f'chunk_{count:04d}.pb'), 'wb') as f:
            f.write(t.SerializeToString())
        count += 1
    meta = dict(chunks=count, chunk_s=n / sr, speech_start_s=pad / sr,
                speech_end_s=(pad + len(speech)) / sr, inputs=order, primary=order[0],
                state_inputs=state, state_outputs_from=1)
    with open(os.path.join(sdir, 'meta.json'), 'w') as f:
        json.dump(meta, f, indent=1)
    return count


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build', 'wild')
    only = set(sys.argv[2:])
    models = json.load(open(os.path.join(HERE, 'models.json')))
    failed = []
    for entry in models:
        if only and entry['id'] not in only:
            continue
        path = os.path.join(out, entry['id'], 'model.onnx')
        if not os.path.exists(path):
            failed.append(f"{entry['id']}: {path} missing (run fetch.sh)")
            continue
        try:
            model = onnx.load(path, load_external_data=False)
            sets = make_sets(entry, model)
            names = [v.name for v in graph_inputs(model)]
            for n, values in enumerate(sets):
                d = os.path.join(out, entry['id'], f'test_data_set_{n}')
                os.makedirs(d, exist_ok=True)
                for k, name in enumerate(names):
                    t = numpy_helper.from_array(values[name], name)
                    with open(os.path.join(d, f'input_{k}.pb'), 'wb') as f:
                        f.write(t.SerializeToString())
            desc = ', '.join(f'{k}{list(v.shape)}' for k, v in sets[0].items())
            if entry['recipe']['generator'] == 'vad':
                desc += f"; stream of {write_vad_stream(entry, model, os.path.join(out, entry['id']))} chunks"
            print(f"{entry['id']}: {len(sets)} set(s): {desc}")
        except Exception as e:  # one model's failure never stops the rest
            failed.append(f"{entry['id']}: {type(e).__name__}: {e}")
    for f in failed:
        print('make-inputs: ' + f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
