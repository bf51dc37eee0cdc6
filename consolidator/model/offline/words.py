"""The offline model's lexicon as data: every word list two or more rules share, each stated
once, and the one rarity lookup.

A list one rule alone reads stays beside that rule with the comment saying why it holds what
it holds; a list that several rules read, or that another list contains, lives here, and the
larger lists are built from the smaller ones (the calendar words, the agent's names and the
greetings are in NAME_STOPWORDS because they are these lists, not copies of them).
tests/test_offline_layout.py checks that no two word lists have the same words.

Function words, negations, months, weekdays and the agent's speaker names are the domain's
(consolidator/domain.py: the recall index reads them too) and are re-exported from here.

Rarity: wordfreq's English Zipf frequency, imported on first use and cached per (word, list).
The summariser weighs words by the "small" list (SMALL_LIST, frozen, 29k words); name evidence
(names.py) reads the full list (FULL_LIST), where rare names are still listed.
"""

from __future__ import annotations

from functools import lru_cache

from consolidator.domain import AGENT_SPEAKERS, IRREGULAR_VERBS, MONTHS, NEGATIONS, STOPWORDS, WEEKDAYS

__all__ = [
    "AGENT_SPEAKERS", "ADDRESS_OPENERS", "PARTNERS", "CALLING_OPENERS", "EVERYDAY_ZIPF", "FULL_LIST", "GREETINGS",
    "IRREGULAR_PAST", "MAX_ZIPF", "NUMBER_WORDS",
    "MONTHS", "NAME_STOPWORDS", "NEGATIONS", "PHATIC", "RARE_ZIPF", "RELATIONS", "ROLE_NOUNS", "SMALL_LIST", "SPECIES",
    "STOPWORDS", "TITLES", "WEEKDAYS", "WORKPLACES",
    "alternation", "other_people", "zipf",
]

# Numbers said in words, up to twelve, by value: dates ("two weeks ago"), counts ("has two kids"), amounts.
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12}

# Greetings: the words that open an address ("Hi Lia, ...", "Thanks, Ana!").
GREETINGS = ("hey", "hi", "hello", "dear", "thanks")
# What may stand before a name addressed at a sentence start: person evidence (names.py).
ADDRESS_OPENERS = (*GREETINGS, "thank you", "congrats", "congratulations", "bye", "sorry", "yo")
# ...and before a name called out to (contacts.py: "Wow, Ana!", "Good morning Ana").
CALLING_OPENERS = (*ADDRESS_OPENERS, "wow", "aw", "aww", "omg", "good morning")

# Capitalised words that start sentences or name times, never people.
NAME_STOPWORDS = frozenset(
    """i the a an this that these those it its we you he she they my our your his her their
    me us them what when where why how who which there here then so and but or if yes no not
    ok okay sure thank please also just maybe today tomorrow yesterday
    tonight last next every christmas easter can could would should will do does did is are was were have has had
    let remind todo done cancel never great good nice oh well anyway btw still now mom mum dad
    grandma grandpa everyone everybody someone somebody nobody user""".split()
) | frozenset(GREETINGS) | AGENT_SPEAKERS | frozenset(MONTHS) | frozenset(WEEKDAYS) | frozenset(f"{d}s" for d in WEEKDAYS)

# Interjections and reactions: a closed class of English, not phrases of any one conversation.
PHATIC = frozenset(
    """hi hey hello hiya howdy yo bye goodbye cya wow whoa woah oh ooh ah aw aww awww yay yum yummy mmm yeah yea
    yep yup yes nope nah ok okay alright sure lol haha hahaha hehe hmm um uh omg gosh cheers thanks
    thank thx congrats congratulations sorry welcome hug hugs xoxo great cool awesome amazing nice
    good wonderful fantastic brilliant lovely beautiful gorgeous stunning sweet perfect incredible
    excellent super fun glad happy proud lucky excited exciting inspiring inspired impressive
    impressed thrilled blessed grateful thankful touching interesting totally absolutely
    definitely certainly indeed exactly agree true right sound sounds seem seems look looks""".split()
)

# Simple past forms that take no -s ("went", not "wents"): third_person leaves them as they are.
IRREGULAR_PAST = frozenset(past for _, past, _ in IRREGULAR_VERBS)  # went, made, bought ...

# Where a noun phrase ends: a preposition, conjunction or verb marker ("this pic of ...", "went to
# the fair with ..."): shown.py's pointer phrases, text.py's destinations.
NP_ENDS = frozenset(
    "to for with on in at from by of about after before when while because since as and or but so that which who "
    "is was are were has have had will would can could".split())

# Words in -ing that are no activity after "go" ("went according to plan", "the cat went missing").
NOT_ACTIVITIES = frozenset(
    """according during nothing something anything everything morning evening thing king ring spring string
    wing sing bring ceiling being missing feeling thinking crying laughing worrying wondering doing going
    getting making having trying using taking seeing dating""".split()
)

# Where a day's routine goes, not a place worth remembering ("went to bed", "got back to work").
ROUTINE_PLACES = frozenset("bed sleep work toilet bathroom restroom kitchen lunch dinner breakfast".split())
# ...nor the end of an idiom ("came to the conclusion", "brought it to my attention", "went to the trouble").
IDIOM_ENDS = frozenset(
    "conclusion realization realisation attention end point rescue mind surface fore trouble decision limit extreme"
    .split()
)

# Relations and species as regex alternations: "my sister Ana", "a cat named Nilo".
RELATIONS = (  # the in-laws first: "father-in-law" is no "father"
    "mother-in-law|father-in-law|sister-in-law|brother-in-law|son-in-law|daughter-in-law|"
    "sister|brother|mother|mom|mum|father|dad|wife|husband|partner|boyfriend|girlfriend|fiance|"
    "fiancee|son|daughter|friend|best friend|colleague|coworker|co-worker|boss|manager|cousin|"
    "aunt|uncle|niece|nephew|grandmother|grandfather|grandma|grandpa|neighbour|neighbor|"
    "roommate|flatmate|stepmother|stepfather|stepson|stepdaughter|stepbrother|stepsister|grandson|granddaughter|"
    "godmother|godfather|twin|child|kid|baby|"
    # whom one knows by their role, as much one's own ("my therapist Leo", "my ex Rui"); ex-X before ex
    "ex-wife|ex-husband|ex-boyfriend|ex-girlfriend|ex-partner|ex|mentor|teammate|classmate|teacher|tutor|coach|"
    "trainer|therapist|doctor|dentist|lawyer|accountant|landlord|landlady|supervisor|assistant|nanny|babysitter|"
    "cleaner|housekeeper|pediatrician|paediatrician|physiotherapist|physio|vet|gardener|hairdresser|psychiatrist|"
    "psychologist|nutritionist|caregiver|carer|midwife|surgeon|dermatologist|optometrist|pharmacist|physician|gp|"
    # ... and at work: whom one works for, with or through
    "client|customer|investor|co-founder|cofounder|business partner|employee|intern|contractor|plumber|electrician|"
    "mechanic|builder|realtor|advisor|adviser|consultant|recruiter|editor|professor|student|pastor|priest"
)
# The relations a breakup ends: the one who was "my boyfriend" is "my ex-boyfriend" after it.
PARTNERS = frozenset("wife husband partner boyfriend girlfriend fiance fiancee".split())
# The relations that say whether a she or a he means someone ("my sister Ana": not a "he"); the
# rest ("friend", "doctor", "cousin") say neither. A title says it too ("Mrs. Costa").
FEMININE = frozenset(
    """sister mother mom mum wife girlfriend fiancee daughter aunt niece grandmother grandma stepmother stepdaughter
    stepsister granddaughter godmother landlady mother-in-law sister-in-law daughter-in-law ex-wife ex-girlfriend
    mrs ms""".split())
MASCULINE = frozenset(
    """brother father dad husband boyfriend fiance son uncle nephew grandfather grandpa stepfather stepson stepbrother
    grandson godfather father-in-law brother-in-law son-in-law ex-husband ex-boyfriend mr""".split())
PRONOUN_GENDER = {"she": "f", "her": "f", "hers": "f", "herself": "f", "he": "m", "him": "m", "his": "m", "himself": "m"}


def gender_of(word: str) -> str | None:
    """'f' or 'm' for a relation word or title that says it ("sister", "Mr"), else None."""
    low = word.lower().rstrip(".")
    low = low.split()[-1] if low else low  # "older sister"
    return "f" if low in FEMININE else "m" if low in MASCULINE else None


# A relative's role, whatever the word ("my mom Rosa" is "my mother Rosa"): relatives of two roles,
# or a relative and anyone else ("my cousin Rui", "my landlord Rui Costa"), are two people; the rest
# may be one ("my boss Joana", "my colleague Joana").
_FAMILY_ROLES = tuple(frozenset(role.split()) for role in (
    "mother mom mum", "father dad", "son child kid baby", "daughter child kid baby", "sister twin", "brother twin",
    "grandmother grandma", "grandfather grandpa", "grandson", "granddaughter", "cousin", "aunt", "uncle", "niece",
    "nephew", "mother-in-law", "father-in-law", "sister-in-law", "brother-in-law", "son-in-law", "daughter-in-law",
    "stepmother", "stepfather", "stepson", "stepdaughter", "stepbrother", "stepsister", "godmother", "godfather"))
_FAMILY = frozenset().union(*_FAMILY_ROLES)


def other_people(relation: str, other: str) -> bool:
    """Whether one called `relation` and one called `other` (of the speaker's) are two people: a
    relative and anyone else, or relatives no one role holds ("my son" and "my daughter"; "my kid"
    may be either)."""
    a, b = (r.lower().split()[-1] if r.strip() else "" for r in (relation, other))
    if a == b or (a not in _FAMILY and b not in _FAMILY):
        return False
    return not any(a in role and b in role for role in _FAMILY_ROLES)


# A relation with the place among siblings that tells two apart ("my older brother", "my little sister").
KIN = rf"(?:(?:older|younger|little|big|baby|eldest|oldest|youngest|elder|twin) )?(?:{RELATIONS})"
# What a named workplace may end with, as an alternation: "Santa Maria hospital", "Nova university".
WORKPLACES = ("hospital|clinic|school|university|college|bank|hotel|restaurant|cafe|bakery|shop|store|firm|agency|"
              "library|museum|lab|studio|gym|pharmacy")
# A person's titles, as an alternation: "Dr. Costa" names a person, and its full stop ends no sentence.
TITLES = "Dr|Mr|Mrs|Ms|Mx|Prof"
# What a self-description "as a ..." ends with when it says who someone is ("my journey as a new
# dad", "tough as a single mom"); never a stage of life ("as a kid") or a thing ("as a gift").
ROLE_NOUNS = (
    "woman|man|person|parent|mom|mum|mother|dad|father|wife|husband|grandparent|grandmother|grandfather|"
    "veteran|immigrant|survivor|volunteer|member|vegan|vegetarian|beginner|newcomer|adult"
)
SPECIES = "cat|dog|kitten|puppy|rabbit|bunny|hamster|parrot|bird|horse|turtle|tortoise|snake|lizard|goldfish|fish|guinea pig|ferret"


def alternation(words: tuple[str, ...]) -> str:
    """`words` as a regex alternation, in their order ("hey|hi|..."): the words are plain."""
    return "|".join(words)


RARE_ZIPF = 3.0  # a real word this rare (at most once per million words) is as specific as a name: worth's RARE_BASE - NAME_WEIGHT
EVERYDAY_ZIPF = 5.5  # English's few hundred commonest words ("the", "much", "people"): never a name, never a topic
MAX_ZIPF = 7.0  # the summariser's weight = max(0, MAX_ZIPF - zipf): unknown words weigh 7
SMALL_LIST = "small"  # wordfreq's small English list: the summariser's word weights
FULL_LIST = "best"  # wordfreq's fullest English list: name evidence
_LOOKUP = None


@lru_cache(maxsize=1 << 17)
def zipf(word: str, wordlist: str = SMALL_LIST) -> float:
    """wordfreq's English Zipf frequency of a lower-cased word in `wordlist` (0 when unknown)."""
    return _zipf_lookup()(word, wordlist)


def _zipf_lookup():
    global _LOOKUP
    if _LOOKUP is None:
        try:
            from wordfreq import zipf_frequency

            _LOOKUP = lambda w, wordlist: zipf_frequency(w, "en", wordlist=wordlist)  # noqa: E731
        except ImportError:  # degrade: function words common, everything else mid-rare
            _LOOKUP = lambda w, wordlist: MAX_ZIPF if w in STOPWORDS else 4.0  # noqa: E731
    return _LOOKUP
