#!/usr/bin/env bash
# Makes jdwpx the JDK's own debug agent, so plain `-agentlib:jdwp=...` (and every
# IDE or launcher that uses it) loads ours.
#
#   scripts/install-into-jdk.sh <jdk-home> <libjdwpx.so>   install
#   scripts/install-into-jdk.sh --restore <jdk-home>        put the stock agent back
#
# The stock library is kept as lib/libjdwp.so.stock (saved once, never overwritten).
set -euo pipefail

usage() {
  echo "usage: $0 <jdk-home> <libjdwpx.so> | --restore <jdk-home>" >&2
  exit 2
}

check_jdk() {
  if [[ ! -x "$1/bin/java" || ! -d "$1/lib" ]]; then
    echo "not a JDK home: $1" >&2
    exit 1
  fi
}

if [[ $# -eq 2 && "$1" == "--restore" ]]; then
  jdk=$2
  check_jdk "$jdk"
  if [[ ! -f "$jdk/lib/libjdwp.so.stock" ]]; then
    echo "nothing to restore: $jdk/lib/libjdwp.so.stock does not exist" >&2
    exit 1
  fi
  # Copy then rename, so lib/libjdwp.so is never missing for a JVM starting now.
  cp -p "$jdk/lib/libjdwp.so.stock" "$jdk/lib/libjdwp.so.tmp.$$"
  mv -f "$jdk/lib/libjdwp.so.tmp.$$" "$jdk/lib/libjdwp.so"
  rm -f "$jdk/lib/libjdwp.so.stock"
  echo "restored the stock libjdwp.so in $jdk"
  exit 0
fi

[[ $# -eq 2 && "$1" != --* ]] || usage
jdk=$1
lib=$2
check_jdk "$jdk"
if [[ ! -f "$lib" ]]; then
  echo "no such library: $lib" >&2
  exit 1
fi
if [[ ! -f "$jdk/lib/libjdwp.so.stock" ]]; then
  cp -p "$jdk/lib/libjdwp.so" "$jdk/lib/libjdwp.so.stock"
fi
cp "$lib" "$jdk/lib/libjdwp.so.tmp.$$"
chmod 0644 "$jdk/lib/libjdwp.so.tmp.$$"
mv -f "$jdk/lib/libjdwp.so.tmp.$$" "$jdk/lib/libjdwp.so"
echo "installed $lib as $jdk/lib/libjdwp.so (stock kept as lib/libjdwp.so.stock)"
