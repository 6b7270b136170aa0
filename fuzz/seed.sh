#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the repository's fixtures, in fuzz/corpus/
# (not committed): every spec, DH table, URDF and MJCF file of tests/fixtures/ and robots/.
# The generate target draws its robots from bytes and starts from an empty corpus.
set -euo pipefail
cd "$(dirname "$0")"
fixtures=../tests/fixtures
mkdir -p corpus/spec corpus/dh corpus/urdf corpus/mjcf corpus/generate
cp ../robots/*.toml "$fixtures"/armature/*.toml "$fixtures"/contacts/*.toml \
  "$fixtures"/floating/*.toml corpus/spec/
cp "$fixtures"/dh/*.toml corpus/dh/
cp "$fixtures"/urdf/*.urdf corpus/urdf/
# The MJCF target reads its main file, then after each NUL byte the files a.xml and b.xml.
cp "$fixtures"/mjcf/*.xml corpus/mjcf/
printf '%s\0%s\0%s' \
  '<mujoco model="m"><include file="a.xml"/><worldbody><body><joint class="c"/><geom size="0.1"/></body></worldbody></mujoco>' \
  '<mujoco><include file="b.xml"/><default><default class="c"><joint axis="0 1 0"/></default></default></mujoco>' \
  '<mujoco><compiler angle="radian"/></mujoco>' > corpus/mjcf/includes.xml
for target in spec dh urdf mjcf generate; do
  echo "$target: $(ls corpus/$target | wc -l) seeds"
done
