#!/usr/bin/env bash
# System packages the harness drives: Debian's Chromium (agents' browsers), its headless shell
# (the harness's own headless browser, far cheaper per attempt) and bubblewrap (the sandbox for command agents). Installed when missing and this is a Debian
# machine we may install on (root with apt-get); otherwise say exactly what is missing.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/chromium-headless-shell ] || need+=(chromium-headless-shell)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${need[*]} (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" fonts-dejavu-core >/dev/null
else
  echo "warning: missing system packages: ${need[*]} (install them with your package manager;" \
    "without bubblewrap, command agents need --isolation none)" >&2
fi
