"""``verbatim``: give a compacted session back its own words (csift §6.8).

``scan`` reads one transcript into turn slices and compactions, ``richness`` decides which
agent messages of a turn survive, ``geometry`` lays out every line the document prints (and
so what each costs), ``plan`` spends the budget, ``document`` assembles the text, and
``slices`` cuts it into hook-sized windows.
"""
