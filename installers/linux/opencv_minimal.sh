#!/usr/bin/env bash
# A wheel of OpenCV with only the modules fieldstudio uses (issue 19, item 8).
#
# The opencv-contrib-python-headless wheel carries every OpenCV and contrib module (DNN, video I/O with its own
# FFmpeg, stitching, ...) and OpenBLAS with gfortran: about 180 MB of the Linux bundle. fieldstudio calls
# core, imgproc (colour, resize, blur, perspective), imgcodecs (JPEG and PNG in and out), the contrib CSRT
# tracker (tracking, with video) and the HOG people detector (objdetect; xobjdetect from OpenCV 5). This script builds the same release from its source distribution on PyPI
# (the same package name, version and cv2 module, built by the project's own setup.py) with those modules and
# their dependencies only, no FFmpeg, GStreamer, LAPACK, OpenCL or IPP (whose binaries setup would download),
# and keeps the wheel in CACHE_DIR for the next build.
#
# Usage: opencv_minimal.sh PYTHON CACHE_DIR
#   PYTHON: the interpreter of the environment the bundle is built from (its installed
#   opencv-contrib-python-headless gives the version; pip fetches the source distribution of that version).
# Prints the wheel's path as its last line. Needs a C++ compiler, cmake is fetched by the build if missing.
# About 10 minutes on two cores. Exits non-zero with a message when the build fails.
set -euo pipefail

me="opencv_minimal.sh"
die() { echo "$me: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: $me PYTHON CACHE_DIR"
py="$1"
cache="$2"
dist=opencv-contrib-python-headless
version="$("$py" -c "import importlib.metadata as m; print(m.version('$dist'))" 2>/dev/null)" \
  || die "$dist is not installed in $py's environment"

# the modules: fieldstudio's calls (cv2 in fieldstudio/ and tests/), the tracker's dependencies, and features (features2d before OpenCV 5), without
# which the build's typing-stub step fails (the stubs name cv2.Feature2D)
# and the HOG people detector ("Detect people", the agent's detect_people, bodies in the privacy gate: issue 34),
# which is objdetect's in OpenCV 4 and the contrib xobjdetect's from OpenCV 5 (cmake adds objdetect beneath it)
case "$version" in 4.*) features=features2d hog=objdetect ;; *) features=features hog=xobjdetect ;; esac
modules="core,imgproc,imgcodecs,$features,video,tracking,$hog,python3"
cmake_args=(-DBUILD_LIST="$modules" -DWITH_FFMPEG=OFF -DWITH_GSTREAMER=OFF -DWITH_V4L=OFF -DWITH_IPP=OFF
            -DWITH_LAPACK=OFF -DWITH_EIGEN=OFF -DWITH_OPENCL=OFF -DWITH_ADE=OFF -DWITH_PROTOBUF=OFF
            -DBUILD_PROTOBUF=OFF -DWITH_OPENEXR=OFF -DBUILD_OPENEXR=OFF -DWITH_TBB=OFF -DWITH_ITT=OFF)
key="$(printf '%s\n' "$version" "${cmake_args[@]}" | sha256sum | cut -c1-8)"
out="$cache/opencv-$version-minimal-$key"
wheel="$(ls "$out"/*.whl 2>/dev/null | head -n1 || true)"
if [ -n "$wheel" ]; then
  echo "$me: reusing $wheel" >&2
  echo "$wheel"
  exit 0
fi

mkdir -p "$out"
log="$cache/opencv-$version-build.log"
echo "$me: building $dist $version with $modules only ($(nproc) jobs; about 10 minutes; log: $log)" >&2
# --no-cache-dir: pip's wheel cache does not key on CMAKE_ARGS, so this wheel must not stand in for a full
# source build later
if ! CMAKE_ARGS="${cmake_args[*]}" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
     "$py" -m pip wheel --no-cache-dir --no-deps --no-binary "$dist" "$dist==$version" -w "$out" > "$log" 2>&1; then
  tail -n 20 "$log" >&2
  rm -rf "$out"
  die "the build failed; its log: $log"
fi
wheel="$(ls "$out"/*.whl | head -n1)"
echo "$wheel"
