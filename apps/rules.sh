#!/bin/sh
# The seed apps' security rules as one kura.rules on standard output: the common section (common.rules), then each
# app's own section (<app>/<app>.rules), for every app or only those named.
#
#   apps/rules.sh > kura_data/kura.rules          every app (what `make run` installs in a new data directory)
#   apps/rules.sh quiz > mydata/kura.rules        the quiz app's rules alone
set -eu
cd "$(dirname "$0")"
if [ $# -eq 0 ]; then
    set --
    for file in */*.rules; do
        app=${file%%/*}
        [ "$file" = "$app/$app.rules" ] && set -- "$@" "$app"
    done
fi
echo "rules_version = '1';"
echo
cat common.rules
for app in "$@"; do
    [ -f "$app/$app.rules" ] || { echo "apps/rules.sh: no app '$app' (no apps/$app/$app.rules)" >&2; exit 1; }
    echo
    cat "$app/$app.rules"
done
