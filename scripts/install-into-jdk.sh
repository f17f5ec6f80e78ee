#!/usr/bin/env bash
# Makes jdwpx the JDK's own debug agent, so plain `-agentlib:jdwp=...` (and every
# IDE or launcher that uses it) loads ours. Installed as jdwpx-install-into-jdk.
#
#   jdwpx-install-into-jdk <jdk-home> [<libjdwpx.so>]  install (again: replace ours); the
#                                                      library defaults to the one installed
#                                                      beside this script (../lib/jdwpx/)
#   jdwpx-install-into-jdk --restore <jdk-home>         put the stock agent back
#   jdwpx-install-into-jdk --list                       the JDKs jdwpx is installed in
#
# --list is what the package's maintainer scripts use: an upgrade of the package updates
# those JDKs, its removal restores them. It reads dpkg's diversions (packaged JDKs) and a
# record of the plain installs, $JDWPX_STATE_DIR/jdks (default /var/lib/jdwpx, which the
# package makes; without that directory plain installs are not recorded).
#
# Where the stock library goes: lib/libjdwp.so.stock, beside ours. Not ending in .so,
# the JVM (lib<name>.so) and ldconfig never load it by mistake; it is the name earlier
# versions of this script used, so their installs are taken over as they are.
# - lib/libjdwp.so belongs to a Debian package (`dpkg -S`, matched by file identity, so a
#   symlinked JDK home such as /usr/lib/jvm/java-1.17.0-openjdk-amd64 finds the path dpkg
#   knows): a local dpkg diversion of that path to lib/libjdwp.so.stock. Upgrades and
#   reinstalls of the package then write the stock library there, never over ours, and
#   --restore removes the diversion (`dpkg-divert --rename --remove`).
# - otherwise (a JDK unpacked from a tarball): a plain copy, saved once, never overwritten.
# lib/libjdwp.so is always replaced by a rename, so a JVM starting meanwhile never finds it
# missing. Running either form twice is harmless; nothing is ever deleted that is not a
# second copy of something kept.
#
# Exit status: 0 done (or nothing to do), 1 an error (nothing changed), 2 usage.
set -euo pipefail

prog=${0##*/}
admindir=${DPKG_ADMINDIR:-/var/lib/dpkg}
state_dir=${JDWPX_STATE_DIR:-/var/lib/jdwpx}
registry=$state_dir/jdks

usage() {
  echo "usage: $prog <jdk-home> [<libjdwpx.so>] | --restore <jdk-home> | --list" >&2
  exit 2
}

die() {
  echo "$prog: $*" >&2
  exit 1
}

say() {
  echo "$prog: $*"
}

# check_jdk <jdk-home>: a JDK (or a JRE) whose agent is, or was, lib/libjdwp.so.
check_jdk() {
  [[ -d $1 ]] || die "not a JDK home: $1 does not exist"
  [[ -x $1/bin/java && -d $1/lib ]] || die "not a JDK home: $1 (no bin/java or no lib/)"
  [[ -e $1/lib/libjdwp.so || -e $1/lib/libjdwp.so.stock ]] ||
    die "$1 has no lib/libjdwp.so: a runtime made without the jdk.jdwp.agent module cannot debug"
}

# check_writable <dir> <what>: fail before anything changes when <dir> cannot be written.
check_writable() {
  [[ -w $1 ]] ||
    die "permission denied: cannot write to $1 ($2); run it as root, e.g. sudo $prog ${args[*]}"
}

# find_owner: sets pkg (e.g. openjdk-17-jre-headless:amd64), name (without the
# architecture, for messages) and pkg_path (lib/libjdwp.so as dpkg spells it) when a
# package owns $jdk/lib/libjdwp.so; all empty otherwise.
find_owner() {
  pkg='' pkg_path='' name=''
  command -v dpkg-query > /dev/null || return 0
  local line owner path
  while IFS= read -r line; do
    # "local diversion from: <path>", "diversion by <package> to: <path>": not owners.
    [[ $line == *"diversion from: /"* || $line == *"diversion to: /"* ]] && continue
    owner=${line%%: /*} path=/${line#*: /}
    # The same directory by device and inode, whatever symlinks either path goes through.
    if [[ ${path##*/} == libjdwp.so && ${path%/*} -ef $jdk/lib ]]; then
      pkg=${owner%%,*} pkg_path=$path name=${pkg%%:*}
      return 0
    fi
  done < <(dpkg-query -S '*/lib/libjdwp.so' 2> /dev/null || true)
}

# The md5sum the package recorded for lib/libjdwp.so (empty if it recorded none).
package_md5() {
  local sums
  sums=$(dpkg-query --control-path "$pkg" md5sums 2> /dev/null) || return 0
  [[ -n $sums && -r $sums ]] || return 0
  awk -v path="${pkg_path#/}" '$2 == path { print $1 }' "$sums"
}

# is_stock <file>: <file> is the package's own lib/libjdwp.so, byte for byte.
is_stock() {
  [[ -n $stock_md5 && -f $1 ]] && [[ $(md5sum < "$1") == "$stock_md5 "* ]]
}

# diversion_state: "none", "ours" (a local diversion to lib/libjdwp.so.stock) or a
# description of someone else's diversion.
diversion_state() {
  local by to
  by=$(dpkg-divert --listpackage "$pkg_path")
  [[ -n $by ]] || { echo none; return; }
  to=$(dpkg-divert --truename "$pkg_path")
  if [[ $by == LOCAL && $to == "$pkg_path.stock" ]]; then
    echo ours
  elif [[ $by == LOCAL ]]; then
    echo "a local diversion to $to"
  else
    echo "a diversion by package $by to $to"
  fi
}

# keep_copy <from> <to>: <to> becomes <from>'s file: a hard link (the very same file, its
# owner, mode and times), or a copy where links cannot be made.
keep_copy() {
  ln -P "$1" "$2" 2> /dev/null || cp -pP "$1" "$2"
}

# replace <new> <target>: <target> becomes a copy of <new>, mode 0644, by a rename.
replace() {
  local tmp=$2.jdwpx-tmp.$$
  tmp_files+=("$tmp")
  cp "$1" "$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$2"
}

# restore_from <saved> <target>: <target> becomes <saved>'s file by a rename, <saved> stays
# (the same file through a hard link where possible).
restore_from() {
  local tmp=$2.jdwpx-tmp.$$
  tmp_files+=("$tmp")
  keep_copy "$1" "$tmp"
  mv -f "$tmp" "$2"
}

install_plain() {
  if [[ -e $saved ]]; then
    if cmp -s "$lib_src" "$lib"; then
      say "jdwpx ($lib_src) is already $lib; nothing to do (stock kept as $saved)"
      return
    fi
    replace "$lib_src" "$lib"
    say "installed $lib_src as $lib (stock kept as $saved since an earlier install)"
    return
  fi
  keep_copy "$lib" "$saved"
  replace "$lib_src" "$lib"
  say "installed $lib_src as $lib (stock kept as $saved; not from a package: a plain copy)"
}

restore_plain() {
  if [[ ! -e $saved ]]; then
    say "nothing to restore: $saved does not exist (jdwpx is not installed in $jdk)"
    return
  fi
  mv -f "$saved" "$lib"
  say "restored the stock libjdwp.so in $jdk"
}

install_package() {
  local state
  state=$(diversion_state)
  case $state in
    ours)
      if [[ ! -e $saved ]]; then
        echo "$prog: warning: the stock library $saved is missing; 'apt-get install --reinstall" \
          "$name' puts it back there" >&2
      fi
      if cmp -s "$lib_src" "$lib"; then
        say "jdwpx ($lib_src) is already $lib; nothing to do ($name's file diverted to $saved)"
        return
      fi
      replace "$lib_src" "$lib"
      say "installed $lib_src as $lib ($name's file already diverted to $saved)"
      return
      ;;
    none) ;;
    *) die "$pkg_path has $state, not jdwpx's; left alone (see dpkg-divert --list)" ;;
  esac

  local made_copy=''
  if [[ -e $saved ]]; then
    # Left by an earlier version of this script, which made plain copies: keep whichever
    # file is the package's (an upgrade since may have put it back at lib/libjdwp.so).
    if is_stock "$saved"; then
      :
    elif is_stock "$lib"; then
      say "replacing $saved, an outdated copy (not $name's current file), by $lib"
      restore_from "$lib" "$saved"
    else
      die "cannot tell which file is $name's libjdwp.so: neither $lib nor $saved matches" \
        "its md5sum. Put the package's file back ('apt-get install --reinstall $name')," \
        "remove $saved, then run this again"
    fi
  elif [[ -n $stock_md5 ]] && ! is_stock "$lib"; then
    die "$lib is not $name's file (changed by hand?) and no stock copy is kept: it is left" \
      "alone. 'apt-get install --reinstall $name' puts the package's file back"
  else
    keep_copy "$lib" "$saved"
    made_copy=y
  fi
  # The stock file is already at the diverted path, so dpkg only records the diversion.
  if ! dpkg-divert --local --no-rename --divert "$pkg_path.stock" --add "$pkg_path" > /dev/null; then
    [[ -z $made_copy ]] || rm -f "$saved"
    die "dpkg-divert failed; nothing changed"
  fi
  replace "$lib_src" "$lib"
  say "installed $lib_src as $lib; $name's file is diverted (dpkg-divert) to $saved," \
    "where upgrades of the package will update it"
}

restore_package() {
  local state
  state=$(diversion_state)
  case $state in
    ours)
      [[ -e $saved ]] ||
        die "the stock library $saved is missing: 'apt-get install --reinstall $name'" \
          "puts the package's file there (the diversion stays), then run --restore again"
      restore_from "$saved" "$lib"
      # $lib and $saved are now one file (or two equal ones): dpkg-divert --rename only
      # unlinks $saved when they are one; a copy is removed first so that it allows it.
      [[ $lib -ef $saved ]] || rm -f "$saved"
      dpkg-divert --local --rename --remove "$pkg_path" > /dev/null ||
        die "dpkg-divert --remove failed; $lib is the stock library again but still diverted"
      if [[ -n $stock_md5 ]] && ! is_stock "$lib"; then
        echo "$prog: warning: $lib does not match $name's md5sum;" \
          "'apt-get install --reinstall $name' puts the package's file back" >&2
      fi
      say "restored $name's libjdwp.so in $jdk and removed the diversion to $saved"
      ;;
    none)
      if [[ -e $saved ]]; then
        # A plain copy made by an earlier version of this script.
        if is_stock "$lib"; then
          rm -f "$saved"
          say "nothing to restore: $lib is already $name's file; removed the outdated copy $saved"
        elif is_stock "$saved" || [[ -z $stock_md5 ]]; then
          mv -f "$saved" "$lib"
          say "restored the stock libjdwp.so in $jdk"
        else
          die "neither $lib nor $saved is $name's current file; left both alone." \
            "'apt-get install --reinstall $name' puts it back"
        fi
      elif [[ -z $stock_md5 ]] || is_stock "$lib"; then
        say "nothing to restore: jdwpx is not installed in $jdk ($lib is $name's)"
      else
        die "$lib is not $name's file and no stock copy is kept at $saved;" \
          "'apt-get install --reinstall $name' puts it back"
      fi
      ;;
    *) die "$pkg_path has $state, not jdwpx's; left alone (see dpkg-divert --list)" ;;
  esac
}

# The agent `cmake --install` and the package put beside this script: <prefix>/lib/jdwpx/.
installed_agent() {
  local here
  here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
  readlink -m "$here/../lib/jdwpx/libjdwpx.so"
}

# canonical <dir>: the path without symlinks, so one JDK is recorded once.
canonical() {
  (cd "$1" 2> /dev/null && pwd -P) || echo "$1"
}

# record / forget <jdk-home>: the record of plain installs that --list reads. Kept only
# where the package made $state_dir; a failure to write it never fails the install.
record() {
  [[ -d $state_dir && -w $state_dir ]] || return 0
  local home
  home=$(canonical "$1")
  grep -qxF -- "$home" "$registry" 2> /dev/null || echo "$home" >> "$registry" || true
}

forget() {
  [[ -f $registry && -w $state_dir ]] || return 0
  local home
  home=$(canonical "$1")
  grep -vxF -- "$home" "$registry" > "$registry.tmp" || true
  mv -f "$registry.tmp" "$registry"
}

# list_jdks: every JDK home jdwpx is installed in, once each.
list_jdks() {
  {
    if command -v dpkg-divert > /dev/null; then
      dpkg-divert --list '*/lib/libjdwp.so' 2> /dev/null |
        sed -n 's|^local diversion of \(/.*\)/lib/libjdwp\.so to \1/lib/libjdwp\.so\.stock$|\1|p'
    fi
    if [[ -f $registry ]]; then
      local home
      while IFS= read -r home; do
        [[ -n $home && -e $home/lib/libjdwp.so.stock ]] && echo "$home"
      done < "$registry"
    fi
  } | sort -u
}

# restore_removed: --restore of a JDK whose package was removed while jdwpx was in it. dpkg
# removed the package's files (the stock library at the diverted path among them) and
# left ours and the diversion; both go now. Returns 1 when that is not the case.
restore_removed() {
  local path=$jdk/lib/libjdwp.so
  [[ ! -e $jdk/bin/java ]] && command -v dpkg-divert > /dev/null || return 1
  [[ $(dpkg-divert --listpackage "$path" 2> /dev/null) == LOCAL &&
    $(dpkg-divert --truename "$path") == "$path.stock" ]] || return 1
  [[ ! -e $path.stock ]] || return 1
  check_writable "$admindir" "dpkg's database, where the diversion is recorded"
  if [[ -e $path ]]; then
    check_writable "$jdk/lib" "the JDK's library directory"
    rm -f "$path"
  fi
  dpkg-divert --local --no-rename --remove "$path" > /dev/null ||
    die "dpkg-divert --remove failed"
  rmdir "$jdk/lib" "$jdk" 2> /dev/null || true
  say "$jdk is gone (its package was removed): removed jdwpx's copy there and the diversion of $path"
}

args=("$@")
tmp_files=()
trap 'rm -f "${tmp_files[@]}"' EXIT  # a temporary file a failed cp or mv left behind
if [[ $# -eq 1 && $1 == --list ]]; then
  list_jdks
  exit 0
elif [[ $# -eq 2 && $1 == --restore ]]; then
  mode=restore jdk=$2
elif [[ $# -eq 2 && $1 != -* ]]; then
  mode=install jdk=$1 lib_src=$2
elif [[ $# -eq 1 && $1 != -* ]]; then
  mode=install jdk=$1 lib_src=$(installed_agent)
  if [[ ! -f $lib_src ]]; then
    echo "$prog: no agent installed beside this command ($lib_src does not exist): name the library" >&2
    usage
  fi
else
  usage
fi
if [[ $mode == restore ]] && restore_removed; then
  forget "$jdk"
  exit 0
fi
check_jdk "$jdk"
if [[ $mode == install ]]; then
  [[ -f $lib_src ]] || die "no such library: $lib_src"
fi
lib=$jdk/lib/libjdwp.so
saved=$jdk/lib/libjdwp.so.stock
find_owner
check_writable "$jdk/lib" "the JDK's library directory"
if [[ -n $pkg ]]; then
  check_writable "$admindir" "dpkg's database, where the diversion of $name's file is recorded"
  stock_md5=$(package_md5)
  "${mode}_package"
else
  "${mode}_plain"
  if [[ $mode == install ]]; then record "$jdk"; else forget "$jdk"; fi
fi
