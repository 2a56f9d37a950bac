#!/usr/bin/env bash
# Setup on a fresh Debian 12 machine (root or sudo; no GPU needed): the WebGPU-on-CPU system packages
# (Mesa >= 25 lavapipe from bookworm-backports for Node + Dawn, Debian's chromium for the browser tests,
# see ../shared/TOOLING.md), then `npm ci` and the CLI build (`npm run build:cli`). Idempotent; quick when done.
# Other systems: any Vulkan driver works for Node (set VK_ICD_FILENAMES), any WebGPU browser for the page.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

say() { echo "[setup] $*" >&2; }
SUDO=()
if [ "$(id -u)" != 0 ]; then SUDO=(sudo -E); fi
t0=$SECONDS

# Mesa >= 25 lavapipe (bookworm-backports; Debian 12's Mesa 22 is rejected by Dawn) for Node + Dawn,
# chromium for browser tests (SwiftShader WebGPU), firefox-esr for the Firefox demo test (WebGPU on wgpu,
# over the same lavapipe; Deno's wgpu for test/wgpu comes from npm, the `deno` devDependency).
mesa_ok() {
  local v
  v=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null) || return 1
  dpkg --compare-versions "$v" ge 25 && [ -e /usr/share/vulkan/icd.d/lvp_icd.json ]
}
chromium_ok() { [ -x /usr/bin/chromium ]; }
firefox_ok() { [ -x /usr/bin/firefox-esr ]; }

if ! mesa_ok || ! chromium_ok || ! firefox_ok; then
  if ! grep -rqs '^Suites:.*bookworm-backports' /etc/apt/sources.list.d/ \
     && ! grep -rqs '^deb .* bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "adding bookworm-backports apt source"
    awk 'BEGIN{RS="";ORS="\n\n"} NR==1' /etc/apt/sources.list.d/debian.sources | grep -v '^#' \
      | sed 's/^Suites:.*/Suites: bookworm-backports/' \
      | "${SUDO[@]}" tee /etc/apt/sources.list.d/backports.sources >/dev/null
  fi
  say "apt-get update"
  "${SUDO[@]}" apt-get update -qq >&2
  if ! mesa_ok; then
    say "installing mesa-vulkan-drivers from bookworm-backports"
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers >&2
  fi
  if ! chromium_ok; then
    say "installing chromium"
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
  fi
  if ! firefox_ok; then
    say "installing firefox-esr"
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends firefox-esr >&2
  fi
fi
mesa_ok || { say "lavapipe from Mesa >= 25 is still missing"; exit 1; }
chromium_ok || { say "/usr/bin/chromium is still missing"; exit 1; }
firefox_ok || { say "/usr/bin/firefox-esr is still missing"; exit 1; }
say "system packages ready ($((SECONDS - t0)) s)"

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >&2
  say "npm ci done ($((SECONDS - t0)) s)"
fi
# the CLI bundle (the package has no prepare script): built when missing or older than the sources
[ -f dist/cli.js ] && [ -z "$(find src shaders vite.cli.config.ts -newer dist/cli.js -print -quit)" ] || npm run build:cli >&2
