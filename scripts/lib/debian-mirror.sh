# Sourced: debian_mirror prints the Debian archive this machine's apt uses (first
# "deb" URI of its main archive, not the security one), so that a bullseye root
# or sysroot comes from the same mirror as the machine's own packages.
debian_mirror() {
  local uri
  uri=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
        grep -v -- '-security' | grep -m1 '/debian/\?$' || true)
  if [[ -z "$uri" ]]; then
    uri=$(grep -rhoE '^(URIs:|deb) +[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
          awk '{print $2}' | head -n1 || true)
  fi
  [[ -n "$uri" ]] || { echo "no Debian mirror in this machine's apt sources" >&2; return 1; }
  echo "${uri%/}"
}
