#!/usr/bin/env bash
# Install taluva as two server processes, AI workers and nginx in front, on one Debian host
# with systemd (docs/deploy.md). Run as root from a clone of the repository:
#     bash deploy/install.sh
# It installs the Debian packages, a 'taluva' system user, the package in a virtualenv, a
# PostgreSQL role and database with a generated password, the units and the nginx site, then
# starts everything. Running it again changes nothing that is already in place.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source_dir="$(dirname "$here")"
home=/opt/taluva
etc=/etc/taluva
ports=(8001 8002)

if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q postgresql redis-server nginx python3-venv curl
systemctl enable --now postgresql redis-server

id taluva >/dev/null 2>&1 || adduser --system --group --home "$home" taluva
[ -x "$home/.venv/bin/python" ] || runuser -u taluva -- python3 -m venv "$home/.venv"
"$home/.venv/bin/pip" install --quiet "$source_dir[server]"

install -d -m 750 -g taluva "$etc"
if [ ! -f "$etc/taluva.env" ]; then
    password="$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')"
    runuser -u postgres -- psql -q -c "CREATE ROLE taluva LOGIN PASSWORD '$password'"
    runuser -u postgres -- createdb --owner taluva taluva
    sed "s/change-this-password/$password/" "$here/systemd/taluva.env" >"$etc/taluva.env"
    chmod 640 "$etc/taluva.env"
    chgrp taluva "$etc/taluva.env"
fi

install -m 644 "$here/systemd/taluva-server@.service" "$here/systemd/taluva-ai-worker.service" \
    /etc/systemd/system/
systemctl daemon-reload
# The first server creates the schema; the others start once it answers.
systemctl enable --now "taluva-server@${ports[0]}"
for _ in $(seq 60); do
    curl -fs "http://127.0.0.1:${ports[0]}/api/config" >/dev/null && break
    sleep 1
done
for port in "${ports[@]:1}"; do
    systemctl enable --now "taluva-server@$port"
done
systemctl enable --now taluva-ai-worker

# With a certificate in /etc/ssl/taluva (fullchain.pem, privkey.pem) the site answers HTTPS.
site=taluva.conf
if [ -f /etc/ssl/taluva/fullchain.pem ] && [ -f /etc/ssl/taluva/privkey.pem ]; then
    site=taluva-tls.conf
fi
install -m 644 "$here/nginx/taluva-http.conf" "$here/nginx/taluva-locations.conf" \
    /etc/nginx/snippets/
install -m 644 "$here/nginx/$site" /etc/nginx/sites-available/taluva
ln -sf /etc/nginx/sites-available/taluva /etc/nginx/sites-enabled/taluva
rm -f /etc/nginx/sites-enabled/default
nginx -t
systemctl reload nginx
scheme=http
[ "$site" = taluva.conf ] || scheme=https
echo "taluva: $scheme://$(hostname -f)/ (servers on ports ${ports[*]}, AI workers running)"
