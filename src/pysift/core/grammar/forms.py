"""The WHEN forms as text (no imports): the grammar's errors name the common ones and each
command's --help lists them all, without the CLI loading the parser to say so."""

WHEN_FORMS = (
    "an ISO 8601 instant with Z or an offset (2026-06-07T14:00:00Z, 2026-06-07T14:00+10:00), "
    "a local date-time (2026-06-07T14:00, 2026-06-07 14:00:05), a local date "
    "(2026-06-07 = local midnight), an age before now (45s, 90m, 2h, 3d, 2w, 2mo, 1y; "
    "a leading - means the same) or now"
)
#: What an error names (a line stays under 200 characters); every form is in --help.
WHEN_SHORT = ("a date (2026-06-07), a date-time (2026-06-07T14:00, +10:00 or Z), an age "
              "(90m, 2h, 3d) or now; every form in --help")
