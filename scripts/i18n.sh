#!/bin/sh
# Refresh the translation catalogs (Babel).
#
#   scripts/i18n.sh           extract every _()/_n()/_p()/M_() string from tgbot/ into messages.pot
#                             (with the "# NOTE:" comment just above it, for translators),
#                             then merge it into each language's messages.po (never `init`: the
#                             catalogs exist), then compile them. New strings arrive untranslated,
#                             changed ones fuzzy: both are English until translated.
#   scripts/i18n.sh --compile only compile each messages.po to messages.mo (after translating).
#   scripts/i18n.sh --check   change nothing; exit 1 if messages.pot or a catalog is out of date.
#
# The bot reads only the compiled catalogs (messages.mo, tgbot/i18n.py). The package build makes
# them (setup.py: a wheel, or in place for `pip install -e`), `make test` / `make run` compile the
# ones whose .po changed, and tests/test_catalogs.py fails while one is missing or stale. Run
# `.venv/bin/pytest tests/test_i18n.py tests/test_texts.py tests/test_catalogs.py` after translating.
set -eu
cd "$(dirname "$0")/.."
PYBABEL=${PYBABEL:-.venv/bin/pybabel}
LOCALES=tgbot/locales
POT=$LOCALES/messages.pot

extract() {
    "$PYBABEL" -q extract -F babel.cfg -c NOTE: -o "$1" --no-location --omit-header .
}

compile() {
    "$PYBABEL" -q compile -d "$LOCALES" -D messages
}

if [ "${1:-}" = "--compile" ]; then
    compile
    exit 0
fi

if [ "${1:-}" = "--check" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    extract "$tmp/messages.pot"
    if ! cmp -s "$tmp/messages.pot" "$POT"; then
        echo "$POT is out of date: run scripts/i18n.sh" >&2
        exit 1
    fi
    "$PYBABEL" -q update -i "$POT" -d "$LOCALES" --ignore-pot-creation-date --ignore-obsolete --check
    exit 0
fi

extract "$POT"
"$PYBABEL" -q update -i "$POT" -d "$LOCALES" --ignore-pot-creation-date --ignore-obsolete
compile
