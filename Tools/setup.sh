#!/usr/bin/env bash
# Installs the Debian packages gitwire builds and tests with, if any is missing:
# git (client, git daemon, git-upload-pack, git-http-backend), the zlib and libdeflate headers,
# and the tools the tests and scripts use (timeout, unshare, ip, /usr/bin/time, ssh and sshd for
# the ssh:// tests), libcurl (loaded at run time for http(s)://; its headers for the build), and
# python3 and openssl for the HTTP(S) test server and its throwaway certificate authority; for the
# benchmarks in Tools/, hyperfine (timing whole commands) and strace (Tools/bench-clone.sh's stages);
# valgrind for the release build's function order (Tools/function-order.sh).
set -euo pipefail

packages=(git zlib1g-dev libdeflate-dev libcurl4-openssl-dev coreutils util-linux iproute2 time ca-certificates
    openssh-client openssh-server python3 openssl hyperfine strace valgrind)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    echo "installing: ${missing[*]}" >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >&2
fi
