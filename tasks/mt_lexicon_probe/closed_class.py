"""Closed-class words excluded from probe sets by default.

The paper tests adjectives, nouns and verbs only, assuming closed-class words
(determiners, pronouns, prepositions, conjunctions, adverbs) are exhaustively in every
lexicon (seed 004, section 2). Bilingual dictionaries split by the *other* language's
part of speech list some of them under open classes ("from" as an adjective because of
"Reykjaviker"), so the builder drops these lists (project-written, not exhaustive;
organisers add their  with ``--exclude``).
"""

from __future__ import annotations

_EN = """
a about above across after again against all almost along already also although always
am among an and another any anybody anyone anything anyway anywhere are around as at
away  be because been before behind being below beneath beside besides between
beyond both but by can could did do does doing done down during each either else
enough ever every everybody everyone everything everywhere except few for from further
had has have having he hence her here hers herself him himself his how however i if in
inside instead into is it its itself just least less many may me might mine more most
much must my myself  neither never no nobody none nor not nothing now nowhere of
off often on once  only onto or  others otherwise our ours ourselves out
outside over own per perhaps quite rather  several shall she should since so some
somebody someone something sometimes somewhere  such than that the their theirs
them themselves then there therefore these they this those though through throughout
thus till to together too toward towards under underneath unless unlike until up upon
us very via was we  were what whatever when whenever where whereas wherever whether
which while who whoever  whom whose why will with within without would yet you
your yours yourself yourselves
"""

_DE = """
aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
anderes auch auf aus bei beide bin bis bist da damit dann das dass dein deine dem den
denn der des dessen dich die dies diese diesem diesen dieser dieses dir doch dort du
durch ein eine einem einen einer eines er es etwas euch euer eure für gegen gewesen hab
habe haben hat hatte hin hinter ich ihm ihn ihnen ihr ihre im in indem ins ist jede
jedem jeden jeder jedes jene jetzt kann kein keine können könnte man manche mein meine
mich mir mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein seine
sich sie sind so solche soll sollte sondern sonst über um und uns unser unter viel vom
von vor war waren warum was weil welche wenn wer werde werden wie wieder will wir wird
wo wollen zu zum zur zwar zwischen
"""

CLOSED_CLASS: dict[str, frozenset[str]] = {
    "en": frozenset(_EN.split()),
    "de": frozenset(_DE.split()),
}
