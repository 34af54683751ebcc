#!/usr/bin/env bash
# The table of a seeds benchmark that ran in parts (evolve_seeds.sh with SEEDS=1 and
# FIRST_SEED=S, one seed per sitting): reads DIR/seeds.csv, keeps the rows of LABEL, and
# writes DIR/seeds_LABEL.md: one row per seed (best exact chi2 at each mark, the run's
# tournaments/s and best program) and the median over the seeds at each mark, taken as
# bench_evolve does (the middle of the sorted bests; "-" = no exact best yet sorts last).
# A seed that ran more than once counts with its last run.
#
#   bench/seeds_median.sh DIR [LABEL (default: default)]
set -euo pipefail
dir="${1:?usage: bench/seeds_median.sh DIR [LABEL]}"
label="${2:-default}"
csv="$dir/seeds.csv"
[ -f "$csv" ] || { echo "seeds_median: no $csv" >&2; exit 2; }
out="$dir/seeds_$label.md"
awk -F, -v label="$label" '
  NR == 1 { next }
  $1 == label {
    seed = $2; m = $3
    if (!(m in is_mark)) { is_mark[m] = 1; marks[++nm] = m }
    if (!(seed in is_seed)) { is_seed[seed] = 1; seeds[++ns] = seed }
    best[seed, m] = $4; rate[seed] = $5
    p = $0; for (k = 1; k <= 7; k++) p = substr(p, index(p, ",") + 1)  # the program has commas
    if (p != "") prog[seed] = p
  }
  function num(v) { return v == "-" ? 1e300 : v + 0 }
  END {
    if (ns == 0) { print "seeds_median: no rows labelled " label > "/dev/stderr"; exit 2 }
    # marks and seeds in numeric order (insertion sort: a handful of each)
    for (i = 2; i <= nm; i++) for (j = i; j > 1 && marks[j] + 0 < marks[j-1] + 0; j--) { t = marks[j]; marks[j] = marks[j-1]; marks[j-1] = t }
    for (i = 2; i <= ns; i++) for (j = i; j > 1 && seeds[j] + 0 < seeds[j-1] + 0; j--) { t = seeds[j]; seeds[j] = seeds[j-1]; seeds[j-1] = t }
    head = "| seed |"; rule = "|---|"
    for (i = 1; i <= nm; i++) { head = head " " marks[i] " min |"; rule = rule "---|" }
    print head " tournaments/s | best at " marks[nm] " min |"; print rule "---|---|"
    for (s = 1; s <= ns; s++) {
      row = "| " seeds[s] " |"
      for (i = 1; i <= nm; i++) row = row " " ((seeds[s], marks[i]) in best ? best[seeds[s], marks[i]] : "not run") " |"
      print row " " sprintf("%.1f", rate[seeds[s]]) " | `" prog[seeds[s]] "` |"
    }
    row = "| **median of " ns "** |"
    for (i = 1; i <= nm; i++) {
      n = 0
      for (s = 1; s <= ns; s++) if ((seeds[s], marks[i]) in best) v[++n] = best[seeds[s], marks[i]]
      for (a = 2; a <= n; a++) for (b = a; b > 1 && num(v[b]) < num(v[b-1]); b--) { t = v[b]; v[b] = v[b-1]; v[b-1] = t }
      row = row " **" (n ? v[int(n / 2) + 1] : "-") "** |"
    }
    print row " | |"
  }' "$csv" | tee "$out"
