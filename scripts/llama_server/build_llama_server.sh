#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` (CPU only) from the llama.cpp sources that ship inside the `node-llama-cpp` npm
# package (`llama/gitRelease.bundle`, a git bundle of the release it binds), so no other download is needed.
#
#   bash scripts/llama_server/build_llama_server.sh [WORK_DIR]   # default /tmp/llama-server-build
#
# Prints the path of the binary. Needs npm, git, cmake, a C++ compiler and ninja (or make). One core: ~40 minutes;
# set JOBS=N to use more.
set -euo pipefail
work="${1:-/tmp/llama-server-build}"
jobs="${JOBS:-1}"
mkdir -p "$work"
cd "$work"
if [ ! -f package/llama/gitRelease.bundle ]; then
  npm pack node-llama-cpp >/dev/null
  tar xzf node-llama-cpp-*.tgz package/llama/gitRelease.bundle package/llama/llama.cpp.info.json
fi
echo "llama.cpp release: $(cat package/llama/llama.cpp.info.json | tr -d '\n ')" >&2
[ -d llama.cpp ] || git clone -q package/llama/gitRelease.bundle llama.cpp
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S llama.cpp -B llama.cpp/build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
  -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON >&2
cmake --build llama.cpp/build --target llama-server -j "$jobs" >&2
echo "$work/llama.cpp/build/bin/llama-server"
