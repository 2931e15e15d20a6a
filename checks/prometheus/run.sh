#!/usr/bin/env bash
# Prometheus for a sharded fleet: the shipped rules (promtool), then four shards scraped by a real
# Prometheus whose totals must equal `report merge`'s (see test_prometheus.py).
#   checks/prometheus/run.sh [path/to/beekon-fleet]   (default .build/debug/beekon-fleet)
# Needs Debian's prometheus package (prometheus and promtool).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 checks/prometheus/test_prometheus.py "${1:-.build/debug/beekon-fleet}"
