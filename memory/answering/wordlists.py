"""The word lists answering reads questions and units with: data only, no behaviour.

Below `memory.answering.words` (the word-level tests that use them). Plain words, as
written; `memory.answering.words` cuts them into terms (`memory.lexical.tokenize`).
"""

# ruff: noqa: SIM905
# (a word list reads best as its words, space separated)

__all__ = ["COLOURS", "GENERIC", "IRREGULAR", "MONTHS", "NUMBER_WORDS", "PEOPLE",
           "PLACE_WORDS", "THAT_VERBS", "TITLES"]

NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion trillion dozen half third quarter "
    "percent first second fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "hundredth thousandth".split())

MONTHS = frozenset("january february march april may june july august september october "
                   "november december century centuries ago".split())

COLOURS = frozenset("red orange yellow green blue purple violet pink brown black white grey "
                    "gray silver gold".split())

TITLES = frozenset("doctor dr professor sir mr mrs ms saint king queen emperor".split())

PEOPLE = frozenset(
    "women men children slaves serfs peasants farmers workers merchants traders soldiers "
    "sailors settlers citizens foreigners monks priests nobles scientists engineers artists "
    "painters musicians composers writers poets students teachers doctors nurses builders "
    "craftsmen masons miners hunters explorers pilgrims immigrants refugees villagers "
    "voters officials judges lawyers bankers inventors astronomers".split())

GENERIC = frozenset(
    "said say talk talked mention mentioned hear heard speak spoke slide screen shown show "
    "showed written write displayed board happen happened happening lecturer speaker teacher "
    "video came come next see seen saw going just now many much kind type "
    # light verbs: they say how, not what ("What does chlorophyll take in?")
    "take took taken make made get got give gave put use used".split())
"""Words that say how a question asks, not what it is about: never its terms."""

THAT_VERBS = frozenset({
    "show", "shows", "showed", "shown", "say", "says", "said", "prove", "proved", "know",
    "knew", "think", "thought", "mean", "meant", "claim", "claimed", "find", "found",
    "believe", "believed", "argue", "argued", "suggest", "suggested", "predict",
    "predicted", "decide", "decided", "realise", "realised", "realize", "realized",
    "notice", "noticed", "discover", "discovered", "learn", "learned", "hope", "hoped",
    "so", "such", "now", "is", "was", "are", "were", "did", "does", "do"})
"""A "that" after these opens what was said or shown, not a relative clause."""

PLACE_WORDS = frozenset("in at from near to across along into".split())

IRREGULAR = (
    "arise arose arisen|be was were been|beat beat beaten|become became|"
    "begin began begun|blow blew blown|break broke broken|bring brought|"
    "build built|buy bought|catch caught|choose chose chosen|come came|cost cost|"
    "creep crept|cut cut|deal dealt|dig dug|draw drew drawn|drink drank drunk|"
    "drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought|"
    "find found|flee fled|fly flew flown|forbid forbade forbidden|forget forgot forgotten|"
    "freeze froze frozen|get got gotten|give gave given|go went gone|"
    "grow grew grown|hang hung|have had|hear heard|hide hid hidden|hit hit|hold held|"
    "keep kept|know knew known|lay laid|lead led|leave left|lend lent|"
    "light lit|lose lost|make made|mean meant|meet met|pay paid|ride rode ridden|"
    "ring rang rung|rise rose risen|run ran|say said|see saw seen|seek sought|sell sold|"
    "send sent|shake shook shaken|shine shone|shoot shot|shrink shrank shrunk|sing sang sung|"
    "sink sank sunk|sit sat|sleep slept|slide slid|speak spoke spoken|spend spent|"
    "spin spun|spread spread|stand stood|steal stole stolen|stick stuck|sting stung|"
    "strike struck stricken|swear swore sworn|sweep swept|swim swam swum|swing swung|"
    "take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown|"
    "understand understood|wake woke woken|wear wore worn|weave wove woven|weep wept|"
    "win won|write wrote written")
"""Verbs and their irregular forms, one verb between "|" (the verb first)."""
