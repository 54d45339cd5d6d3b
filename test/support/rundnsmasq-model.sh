#!/usr/bin/bash
# A model of ironic-image's /bin/rundnsmasq for the tests, written from what the script and its template
# dnsmasq.conf.j2 do (../shared reference, section 4): the same variables, the same lines in the same order,
# each DHCP_RANGE / DHCP_OPTIONS / DHCP_HOSTS item written verbatim after its key (an item that holds a newline
# therefore adds a line, as Jinja2 does), except-interface lines after interface=, then exec dnsmasq -d -q.
# Differences, for a test machine: the files live under MODEL_ROOT instead of /conf, /shared and /data, the
# firmware files are empty placeholders, dnsmasq keeps the user it starts as and writes no pid file, and its
# upstream DNS servers come from MODEL_RESOLV_FILE when it is set (the container's /etc/resolv.conf otherwise).
set -euo pipefail
root="${MODEL_ROOT:?MODEL_ROOT is the directory that stands for /conf, /shared and /data}"
mkdir -p "$root/conf/dnsmasq" "$root/shared/tftpboot" "$root/data/dnsmasq"
touch "$root/data/dnsmasq/dnsmasq.leases"
snp="${SNP_BASENAME:-snponly}"
for f in undionly.kpxe "$snp-x86_64.efi" "$snp-arm64.efi"; do : >"$root/shared/tftpboot/$f"; done

# wait_for_interface_or_ip, for the cases the tests use: IRONIC_IP given, or PROVISIONING_IP (its interface
# becomes PROVISIONING_INTERFACE once the address is on it). Only the IPv4 boot lines are modelled.
if [[ -n "${IRONIC_IP:-}" ]]; then
  ip_="$IRONIC_IP"
else
  ip_="${PROVISIONING_IP:?the model covers IRONIC_IP and PROVISIONING_IP only}"
  ip_="${ip_%%/*}"
  until PROVISIONING_INTERFACE="$(ip -o addr show to "$ip_" | awk '{print $2; exit}')" && [[ -n "$PROVISIONING_INTERFACE" ]]; do
    echo "Waiting for $ip_ to be configured on an interface..."
    sleep 1
  done
fi
if [[ "$ip_" == *:* ]]; then ipv=6; url_host="[$ip_]"; else ipv=4; url_host="$ip_"; fi
http_url="${IRONIC_HTTP_URL:-http://${url_host}:${HTTP_PORT:-80}}"
if [[ "${DNS_IP:-}" == "provisioning" ]]; then
  if [[ "$ipv" == 4 ]]; then DNS_IP="$ip_"; else DNS_IP="[$ip_]"; fi
fi

# Each item of a ;-separated list after its key, verbatim.
items() {
  local key="$1" rest="$2" item
  while :; do
    item="${rest%%;*}"
    printf '%s=%s\n' "$key" "$item"
    [[ "$item" == "$rest" ]] && break
    rest="${rest#*;}"
  done
}

conf="$root/conf/dnsmasq/dnsmasq.conf"
{
  echo "interface=${PROVISIONING_INTERFACE:?}"
  IFS=',' read -ra except <<<"${DNSMASQ_EXCEPT_INTERFACE:-lo}"
  for ((i = ${#except[@]} - 1; i >= 0; i--)); do echo "except-interface=${except[i]}"; done
  echo "bind-dynamic"
  echo "enable-tftp"
  echo "tftp-root=$root/shared/tftpboot"
  echo "log-queries"
  echo "dhcp-leasefile=$root/data/dnsmasq/dnsmasq.leases"
  echo "port=${DNS_PORT:-0}"
  if [[ -n "${DHCP_RANGE:-}" ]]; then
    echo "log-dhcp"
    items dhcp-range "$DHCP_RANGE"
  fi
  if [[ -z "${DNS_IP+set}" ]]; then echo "dhcp-option=6"; else
    if [[ "$DNS_IP" == *:* ]]; then echo "dhcp-option=option6:dns-server,$DNS_IP"; else echo "dhcp-option=option:dns-server,$DNS_IP"; fi
  fi
  if [[ "$ipv" == 4 ]]; then
    echo "dhcp-match=ipxe,175"
    if [[ -z "${GATEWAY_IP+set}" ]]; then echo "dhcp-option=3"; else echo "dhcp-option=option:router,$GATEWAY_IP"; fi
    if [[ -n "${DHCP_OPTIONS:-}" ]]; then items dhcp-option "$DHCP_OPTIONS"; fi
    echo "dhcp-match=set:efi,option:client-arch,7"
    echo "dhcp-match=set:efi,option:client-arch,9"
    echo "dhcp-boot=tag:efi,/$snp-x86_64.efi,$ip_"
    echo "dhcp-match=set:efi-arm64,option:client-arch,11"
    echo "dhcp-boot=tag:efi-arm64,/$snp-arm64.efi,$ip_"
    echo "dhcp-boot=tag:!efi,tag:!efi-arm64,/undionly.kpxe,$ip_"
    if [[ "${IPXE_TLS_SETUP:-}" != "true" ]]; then echo "dhcp-boot=tag:ipxe,$http_url/boot.ipxe"; fi
  fi
  if [[ -n "${DHCP_IGNORE:-}" ]]; then echo "dhcp-ignore=$DHCP_IGNORE"; fi
  if [[ -n "${DHCP_HOSTS:-}" ]]; then items dhcp-host "$DHCP_HOSTS"; fi
} >"$conf"

resolv=()
if [[ -n "${MODEL_RESOLV_FILE:-}" ]]; then resolv=(--resolv-file="$MODEL_RESOLV_FILE"); fi
exec /usr/sbin/dnsmasq -d -q -C "$conf" --user="$(id -un)" --pid-file= "${resolv[@]}"
