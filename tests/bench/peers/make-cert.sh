#!/usr/bin/env bash
# The benchmarks' TLS upstream: a throwaway self-signed certificate (P-256, two days) for 127.0.0.1
# and the name bench-upstream (nginx verifies upstream names, not addresses), written to
# WORK/bench-cert.pem and WORK/bench-key.pem; Switchboard trusts it as the TLS providers' CA bundle
# (switchboard-bench.json, "ca_bundle"), nginx as proxy_ssl_trusted_certificate.
#   tests/bench/peers/make-cert.sh WORK
set -euo pipefail
work=$1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$work/bench-key.pem" -out "$work/bench-cert.pem" -days 2 -subj /CN=bench-upstream \
  -addext "subjectAltName=IP:127.0.0.1,DNS:bench-upstream" 2>/dev/null
