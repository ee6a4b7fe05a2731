#!/usr/bin/env bash
# Compares two matterflow-bench binaries on a shared machine (README, Benchmarks):
#
#   bash Tests/Benchmarks/compare-pinned.sh OLD_BENCH NEW_BENCH FILTER [ROUNDS] [CORE]
#
# Runs `BENCH --filter FILTER` ROUNDS times for each binary (default 5), the two alternated, every run pinned to one
# core with taskset (default the last core), then prints each figure's median for each binary, its range, and the
# ratio NEW / OLD. FILTER is matterflow-bench's (a benchmark or group: action.overhead, commission.oneTask,
# load.shipped, ...). Pinned, rounds of one binary usually agree within a few percent on the 2-core VM, where
# unpinned figures move by up to twice; a round that is still far off is outvoted by the median. Figures of
# benchmarks that use both cores (commission.allCores, concurrent.10000) mean little pinned.
set -euo pipefail
usage() { echo "usage: bash Tests/Benchmarks/compare-pinned.sh OLD_BENCH NEW_BENCH FILTER [ROUNDS] [CORE]" >&2; exit 64; }
[ $# -ge 3 ] && [ $# -le 5 ] || usage
old="$1" new="$2" filter="$3" rounds="${4:-5}" core="${5:-$(($(nproc) - 1))}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || usage
[[ "$core" =~ ^[0-9]+$ ]] || usage
for bin in "$old" "$new"; do
    [ -x "$bin" ] || { echo "compare-pinned: $bin is not an executable file; give two matterflow-bench binaries" >&2; exit 64; }
done
command -v taskset >/dev/null || { echo "compare-pinned: taskset (util-linux) is needed to pin the runs" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for _ in $(seq "$rounds"); do
    for side in old new; do
        bin="$old"
        [ "$side" = new ] && bin="$new"
        # A figure's line: its name at the start, then its median as a number (indented lines are details).
        taskset -c "$core" "$bin" --filter "$filter" | awk -v side="$side" '/^[^ ]/ && $2 ~ /^[0-9.]+$/ { print $1, side, $2 }' >>"$work/figures"
    done
done
[ -s "$work/figures" ] || { echo "compare-pinned: no figure matches --filter $filter" >&2; exit 2; }
printf '%-50s %12s %12s %8s   %s\n' figure old new new/old "ranges (old | new)"
sort -k1,1 -k2,2 -k3,3g "$work/figures" | awk '
    function median(list, n,   parts) { split(list, parts, " "); return n % 2 ? parts[(n + 1) / 2] : (parts[n / 2] + parts[n / 2 + 1]) / 2 }
    { key = $1 SUBSEP $2; values[key] = (key in values ? values[key] " " : "") $3; count[key]++; names[$1] = 1 }
    END {
        for (name in names) {
            o = name SUBSEP "old"; n = name SUBSEP "new"
            if (!(o in count) || !(n in count)) continue
            mo = median(values[o], count[o]); mn = median(values[n], count[n])
            split(values[o], lo, " "); split(values[n], ln, " ")
            printf "%-50s %12.4g %12.4g %8.3f   %s-%s | %s-%s\n", name, mo, mn, (mo > 0 ? mn / mo : 0), lo[1], lo[count[o]], ln[1], ln[count[n]]
        }
    }' | sort
