#!/usr/bin/env bash
# Debian packages the tests need: Chromium (+ its driver) for the browser tests, PostgreSQL
# for the storage tests, Redis and nginx for the tests of several server processes (and nginx
# with openssl's test certificate for the TLS sites' check), DejaVu Sans,
# the font of the pictures' text, which resvg (the 'png' extra) finds among the system's
# fonts. Idempotent: installs only what is missing, so
# a machine that has them already does not touch the network.
set -euo pipefail

wanted=(chromium chromium-driver postgresql redis-server nginx openssl fonts-dejavu-core)
missing=()
for package in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "ci-system-deps: ${wanted[*]} already installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "ci-system-deps: missing ${missing[*]}; run this script as root (apt-get install)" >&2
    exit 1
fi

echo "ci-system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
