#!/usr/bin/env bash
# moteip demo: TCP across ten lossy 802.15.4 hops, in the simulator.
#
#   scripts/demo.sh              set everything up (scripts/setup.sh), build the
#                                simulator, sweep 5 bit error rates x 2 TCP
#                                profiles x 5 seeds, print the table, write plots
#   MOTEIP_SKIP_SETUP=1          skips scripts/setup.sh
#   MOTEIP_DEMO_RUNS=N           seeds per point (default 5)
#
# About a minute on 2 cores when the machine is set up (most of it building);
# the runs themselves take seconds. Results and plots go to out/chain-ber/.
# Nothing touches a network: every node is simulated in one process.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
RUNS=${MOTEIP_DEMO_RUNS:-5}
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [ "${MOTEIP_SKIP_SETUP:-0}" != 1 ]; then
    say "setup: scripts/setup.sh (Debian packages, Python venv with the moteip command)"
    bash scripts/setup.sh </dev/null
fi

MOTEIP=(.venv/bin/moteip)
say "the experiment: examples/chain10-ber.toml"
sed -n '1,/^name/p' examples/chain10-ber.toml | sed '$d' | sed 's/^# \{0,1\}/    /'

say "moteip reproduce chain-ber --runs $RUNS   (builds moteip-sim first if needed)"
"${MOTEIP[@]}" reproduce chain-ber --runs "$RUNS"

say "next"
cat <<'TXT'
    .venv/bin/moteip run examples/chain10-ber.toml --set medium.ber=1e-4 --pcap out/chain.pcap
    .venv/bin/moteip sweep examples/chain10-ber.toml --vary medium.ber=0,1e-4 --runs 20
    .venv/bin/moteip plot out/chain-ber --x medium.ber --y flows[0].rto_timeouts --hue flows[0].sender.profile --logx
    .venv/bin/moteip reproduce --list          (more in docs/TOOL.md)
    sudo scripts/demo-tap.sh                   (the stack on a TAP, pinged by Linux)
TXT
