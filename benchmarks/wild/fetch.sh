#!/usr/bin/env bash
#===- fetch.sh - the wild-model corpus: trained ONNX models from npm -------===//
#
# Usage: benchmarks/wild/fetch.sh [OUT]        (OUT: build/wild by default)
# For each model in benchmarks/wild/models.json: `npm pack PKG@VERSION` into
# OUT/npm-cache (once; a tarball already there is reused, so a second run
# needs no network), extracts only the model's .onnx (and its extra_files),
# checks its sha256 and places it as OUT/<id>/model.onnx. A path of the form
# `dir/resources.json#/key` names a model that the package ships in chunks
# (@imgly/background-removal-*): the chunks are joined in order. A model that
# cannot be fetched or does not match its sha256 is reported and skipped; the
# exit status is 1 when any was.
#
#===----------------------------------------------------------------------===//
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/wild}
cache=$out/npm-cache
mkdir -p "$cache"
command -v npm >/dev/null || { echo "fetch.sh: npm is required" >&2; exit 1; }

# id <TAB> package@version <TAB> path <TAB> sha256 <TAB> extra files (space-separated)
list=$(node -e '
  for (const m of require(process.argv[1]))
    console.log([m.id, m.package, m.path, m.sha256, (m.extra_files || []).join(" ")].join("\t"));
' "$here/models.json") || { echo "fetch.sh: cannot read models.json" >&2; exit 1; }

# The name `npm pack` gives a tarball: @scope/name@1.0 -> scope-name-1.0.tgz.
tarball_name() {
  local spec=$1 name=${1%@*} version=${1##*@}
  name=${name#@}
  echo "${name//\//-}-$version.tgz"
}

failed=()
fetched=0
while IFS=$'\t' read -r id spec path sha extra; do
  dest=$out/$id/model.onnx
  if [ -f "$dest" ] && [ "$(sha256sum "$dest" | cut -d' ' -f1)" = "$sha" ]; then
    fetched=$((fetched + 1)); continue
  fi
  tgz=$cache/$(tarball_name "$spec")
  if [ ! -f "$tgz" ]; then
    echo "npm pack $spec"
    if ! (cd "$cache" && timeout 600 npm pack "$spec" --silent >/dev/null 2>"$cache/npm-pack.err"); then
      failed+=("$id: npm pack $spec failed: $(head -1 "$cache/npm-pack.err")"); rm -f "$tgz"; continue
    fi
  fi
  tmp=$(mktemp -d)
  mkdir -p "$out/$id"
  if [[ $path == *'#'* ]]; then                 # chunked: resources.json#/key
    json=${path%%#*}; key=${path#*#}; dir=$(dirname "$json")
    if tar xzf "$tgz" -C "$tmp" "$dir" 2>/dev/null; then
      node -e '
        const fs = require("fs"), path = require("path");
        const [json, key, dest] = process.argv.slice(1);
        const entry = JSON.parse(fs.readFileSync(json))[key];
        if (!entry) { console.error(`no ${key} in ${json}`); process.exit(1); }
        fs.writeFileSync(dest, Buffer.concat(entry.chunks.map(
          (c) => fs.readFileSync(path.join(path.dirname(json), c.hash)))));
      ' "$tmp/$json" "$key" "$dest.part" && mv "$dest.part" "$dest"
    fi
  elif tar xzf "$tgz" -C "$tmp" "$path" 2>/dev/null; then
    mv "$tmp/$path" "$dest"
  fi
  for f in $extra; do
    tar xzf "$tgz" -C "$tmp" "$f" 2>/dev/null && mv "$tmp/$f" "$out/$id/$(basename "$f")"
  done
  rm -rf "$tmp"
  if [ ! -f "$dest" ]; then
    failed+=("$id: $path not found in $(basename "$tgz")")
  elif [ "$(sha256sum "$dest" | cut -d' ' -f1)" != "$sha" ]; then
    failed+=("$id: sha256 mismatch for $path in $spec"); mv "$dest" "$dest.bad"
  else
    fetched=$((fetched + 1))
  fi
done <<<"$list"

echo "fetch.sh: $fetched models in $out"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'fetch.sh: not fetched: %s\n' "${failed[@]}" >&2
  exit 1
fi
