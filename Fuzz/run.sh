#!/usr/bin/env bash
# Builds MatterFlow's libFuzzer targets and fuzzes each for a bounded time, starting from seed corpora made from
# the shipped files. Exits 1 when any target crashes, hangs or runs out of memory; the input that did it is kept
# in Fuzz/.artifacts/<target>/ (see docs/fuzzing.md for reproducing it and turning it into a regression test).
#
#   bash Fuzz/run.sh                      every target, FUZZ_SECONDS each (default 25)
#   bash Fuzz/run.sh payload dataset      only these targets
#   FUZZ_SECONDS=3600 bash Fuzz/run.sh workflow     one target for an hour
#
# Targets: workflow, home, fixture, journal, payload, dataset, catalog, pattern.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

seconds=${FUZZ_SECONDS:-25}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(workflow home fixture journal payload dataset catalog pattern)

echo "== building the fuzz targets (-sanitize=fuzzer,address)" >&2
swift build --package-path Fuzz --product matterflow-fuzz -Xswiftc -sanitize=fuzzer,address >&2
binary="$(swift build --package-path Fuzz --show-bin-path)/matterflow-fuzz"

work=$(mktemp -d "${TMPDIR:-/tmp}/matterflow-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Seed corpora from the shipped files, one directory per target.
seed() {
    local target=$1
    local dir="$work/seeds/$target"
    mkdir -p "$dir"
    case "$target" in
        workflow)
            cp Workflows/*.json "$dir/"
            ;;
        home)
            cp Examples/*.json Workflows/fixtures/homes/*.json "$dir/"
            ;;
        fixture)
            local n=0
            for file in Workflows/fixtures/*/*.fixture.json; do
                n=$((n + 1)); cp "$file" "$dir/$n.json"
            done
            ;;
        journal)
            # Journals of real runs, as they are and as their records' JSON lines (which the target frames).
            local matterflow="${MATTERFLOW:-$root/.build/debug/matterflow}"
            if [ -x "$matterflow" ]; then
                "$matterflow" run Workflows/commission-device.json --journal "$work/journals" \
                    --input onboardingPayload=MT:Y.K9042C00KA0648G00 --input deviceName=Lamp \
                    --input roomName=Kitchen >/dev/null 2>&1 || true
                "$matterflow" run Workflows/commission-device.json --journal "$work/journals" \
                    --input onboardingPayload=MT:Y.K9042C00KA0648G00 --input deviceName=Lamp \
                    --input roomName=Garage >/dev/null 2>&1 || true
                "$matterflow" run Workflows/epskc-share.json --home Examples/border-router-home.json \
                    --journal "$work/journals" >/dev/null 2>&1 || true
                # A run that asks: its questionAsked and answered records.
                "$matterflow" run Workflows/commission-device-interactive.json --journal "$work/journals" \
                    --input onboardingPayload=MT:Y.K9042C00KA0648G00 --answer room=Kitchen --answer name=Lamp \
                    >/dev/null 2>&1 || true
            else
                echo "note: $matterflow not built; journal seeds are the header only" >&2
            fi
            printf 'MATTERFLOW-JOURNAL 1\n' >"$dir/header.journal"
            for journal in "$work"/journals/*.journal; do
                [ -e "$journal" ] || continue
                cp "$journal" "$dir/"
                tail -n +2 "$journal" | cut -c19- >"$dir/$(basename "$journal").lines"
            done
            ;;
        payload)
            local n=0
            grep -rhoE 'MT:[0-9A-Z.*-]+' Tests Sources docs README.md | sort -u | while read -r code; do
                n=$((n + 1)); printf '%s' "$code" >"$dir/qr-$n"
            done
            grep -rhoE '"[0-9][0-9 -]{9,24}[0-9]"' Tests/MatterPayloadTests | tr -d '"' | sort -u | while read -r code; do
                n=$((n + 1)); printf '%s' "$code" >"$dir/manual-$n"
            done
            ;;
        catalog)
            local n=0
            for file in $(find Examples Tests -name '*.catalog.json'); do
                n=$((n + 1)); cp "$file" "$dir/$n.json"
            done
            ;;
        pattern)
            # Every text answer's pattern in the shipped workflows and the tests (JSON strings, and the Swift
            # literals of the pattern tests, raw #"..."# or plain), unescaped as the engine sees them, each with an
            # answer to match (a row's first matching answer when it gives one); and a few of the patterns that make
            # backtracking engines run for ever. A pattern holding a line break cannot be a seed's first line.
            local n=0
            {
                grep -rhoE '"pattern": *"([^"\\]|\\.)*"' Workflows Tests/MatterFlowTests \
                    | perl -ne 'if (/^"pattern": *"(.*)"$/) { $p = $1; next if $p =~ /\\u/; $p =~ s/\\(.)/$1 eq "t" ? "\t" : $1 eq "n" ? "\n" : $1/ge; print "$p\tKitchen 42\n" unless $p =~ /[\n\t]/ }'
                perl -ne '
                    my ($p, $rest);
                    if (/pattern: #"(.*?)"#(.*)$/) { ($p, $rest) = ($1, $2) }
                    elsif (/pattern: "((?:[^"\\]|\\.)*)"(.*)$/) { ($p, $rest) = ($1, $2); next if $p =~ /\\u/; $p =~ s/\\(.)/$1 eq "t" ? "\t" : $1 eq "n" ? "\n" : $1/ge }
                    else { next }
                    next if $p =~ /[\n\t]/;
                    my $answer = "Kitchen 42";
                    if ($rest =~ /matching: \[#"(.*?)"#/) { $answer = $1 }
                    elsif ($rest =~ /matching: \["((?:[^"\\]|\\.)*)"/) { ($answer = $1) =~ s/\\(.)/$1 eq "t" ? "\t" : $1 eq "n" ? "\n" : $1/ge }
                    $answer =~ s/\n/ /g;
                    print "$p\t$answer\n";
                ' Tests/MatterFlowTests/AnswerPatternTests.swift
            } | sort -u | while IFS=$'\t' read -r pattern answer; do
                n=$((n + 1)); printf '%s\n%s\n' "$pattern" "$answer" >"$dir/shipped-$n"
            done
            printf '(a+)+$\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n' >"$dir/nested-plus"
            printf '(a|aa)*b\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n' >"$dir/alternation-star"
            printf '(.*a){20}\nbabababababababababababababababababababab\n' >"$dir/counted-star"
            printf '[A-Za-z0-9 _-]{1,64}\nLiving Room 2\n' >"$dir/room-name"
            ;;
        dataset)
            local n=0
            grep -rhoE '[0-9a-f]{40,}' Tests/ThreadTestVectors README.md docs | sort -u | while read -r hex; do
                n=$((n + 1)); printf '%s' "$hex" >"$dir/hex-$n"; printf '%s' "$hex" | xxd -r -p >"$dir/tlv-$n"
            done
            ;;
    esac
}

failed=()
for target in "${targets[@]}"; do
    seed "$target"
    corpus="$work/corpus/$target"
    artifacts="$root/Fuzz/.artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    # Journals are parsed record by record; shorter inputs keep the runs fast enough to explore.
    max_len=16384
    [ "$target" = journal ] && max_len=4096
    echo "== fuzzing $target for ${seconds} s ($(ls "$work/seeds/$target" | wc -l) seeds)" >&2
    # Swift's own crash backtracer would make every crash slow to report; libFuzzer reports it.
    # Swift's global initialisers are never freed by design, so leak checking would only report those.
    if ! SWIFT_BACKTRACE=enable=no MATTERFLOW_FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=0 \
        "$binary" "$corpus" "$work/seeds/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$max_len" -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        >"$work/$target.log" 2>&1; then
        tail -n 60 "$work/$target.log" >&2
        echo "== $target FAILED; the input is in $artifacts/" >&2
        failed+=("$target")
    else
        grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/$target.log" | sed "s/^/   $target /" >&2 || true
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found problems in: ${failed[*]}" >&2
    exit 1
fi
echo "fuzzing: ${targets[*]}: no crash, hang or runaway memory in ${seconds} s each" >&2
