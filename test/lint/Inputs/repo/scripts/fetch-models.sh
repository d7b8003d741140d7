#!/usr/bin/env bash
root=$(cd "$(dirname "$0")/.." && pwd)
models=${MODELS_DIR:-../../models}
data=$HOME/datasets/imagenet
export CCACHE_DIR=$HOME/.cache/strata-ccache
