#!/usr/bin/env bash
# Dashboard figures: first-load JS+CSS size (gzip -9) and the frame times of scrolling a
# 100,000-row pool, measured in headless Chromium against a real `mixforge serve`, plus the
# README screenshots. Writes bench/results/web/ (figures.json, *.png).
# Usage: bench/web_dashboard.sh [BUILD_DIR]   (default build/release; build mixforge and
# mixforge_web first)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
out=bench/results/web
mkdir -p "$out"
node tests/web/dashboard_e2e.mjs --mixforge "$build/cli/mixforge" --web "$build/share/mixforge/web" --out "$out"
rm -f "$out/daemon.log"
