"""The attribute rules of the offline backend: which predicates state what, in which words.

Each rule is (attribute, predicate regex, asserted template, value cleaner); the first rule
whose regex matches a predicate ("moved from London to Paris") gives the claim, and the
template renders it ("{s} lives in {v}."). The single-valued attributes (home, employer, job,
partner, diet...) are the ones whose new value supersedes the old fact, so their rules are
written as verb classes rather than set phrases: a change of home is moved/relocated (to,
into, "into a place in X"), settled in, bought/rented/found a place in X; a new employer is
works/employed at, joined X, started at X, got/landed/accepted/took a job at, hired by; a new
job is works as, got/took a job as, promoted to, became a <job>; a partner is dating/seeing/
engaged to/married to a name. ENDINGS are the verbs that end such a value without naming
the next one (split up, broke up, divorced; left/resigned from/fired from a job; moved out):
they close the old fact.

Values are copied from the text; only the templates' connecting verbs are the backend's.
"""

from __future__ import annotations

import re

from consolidator.model.offline.text import clean_general, clean_org, clean_place
from consolidator.model.offline.words import KIN, SPECIES, WORKPLACES

_MONTH_NAMES = "January|February|March|April|May|June|July|August|September|October|November|December"
_ADV = r"(?:(?:now|currently|still|also|just|recently|finally|actually|really|already|officially|both) )*"
_BE = r"(?:am|is|are|was) "
_HAVE = r"(?:(?:have|has) )?"
_START = r"(?:(?:started|began|begun|start|starting) )?"  # "started working as ...": the job itself
_DIETS = r"vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten-free|dairy-free|halal|kosher|flexitarian"
CONDITIONS = (
    r"diabetes|type 1 diabetes|type 2 diabetes|asthma|epilepsy|celiac disease|coeliac disease|"
    r"a heart condition|high blood pressure|hypertension|migraines|chronic back pain|insomnia|arthritis|eczema|"
    r"psoriasis|ADHD|endometriosis|sleep apnea|an anxiety disorder|depression|panic attacks"
)
# An age in words ("five", "twenty-one"): with "years old" after it, or after "turned".
AGE_WORDS = (r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|"
              r"eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
              r"fifteen|sixteen|seventeen|eighteen|nineteen)")
_SEVERITY = r"(?P<sev>(?:serious|severe|mild|bad|life-threatening|deadly|strong) )?"
_CONDITIONS_A = r"diabetic|epileptic|asthmatic|lactose intolerant|gluten intolerant|celiac|coeliac|pregnant"
_JOBS = (
    r"(?:[a-z]+ )?(?:nurse|doctor|teacher|engineer|developer|programmer|designer|lawyer|accountant|"
    r"architect|chef|cook|writer|journalist|student|manager|consultant|pilot|farmer|dentist|vet|"
    r"veterinarian|researcher|professor|lecturer|photographer|artist|musician|plumber|electrician|"
    r"carpenter|mechanic|firefighter|police officer|paramedic|surgeon|analyst|banker|cashier|waiter|"
    r"waitress|barista|driver|translator|editor|actor|actress|dancer|coach|nanny|receptionist|"
    r"secretary|entrepreneur|founder|freelancer|intern|[a-z]+(?:ist|ician|eer|ographer|ologist))"
)
_NAME = r"(?-i:[A-Z][a-z]+(?: [A-Z][a-z]+)?)"  # a capitalised name, even under re.I
_ORG = r"(?-i:[A-Z][\w&.'-]*(?: (?:of |for |and |& )?[A-Z][\w&.'-]*)*)"  # "Acme", "Bank of Spain"
# Where someone works, named: "Acme", "Santa Maria hospital", "the Lisbon public library".
_WORKPLACE = rf"(?:the )?{_ORG}(?: (?:{WORKPLACES}))?"
_DWELLING = (
    r"(?:(?:a|an|the|our|my|their|his|her) )?(?:(?:new|little|small|big|bigger|nice|lovely|cute|tiny|own|first) )*"
    r"(?:place|house|home|flat|apartment|condo|studio|loft|cottage|townhouse)"
)
_PET = rf"(?P<sp>{SPECIES})(?: (?:named|called) (?P<name>[A-Z][\w-]*))?\b.*"
INJURY_ADJ = {"injured": "injured", "broke": "broken", "broken": "broken", "sprained": "sprained",
               "hurt": "hurt", "twisted": "twisted", "fractured": "fractured", "tore": "torn", "torn": "torn"}

def clean_partner(value: str) -> str:
    """'married Tom' -> 'married to Tom' (the template reads 'is married to Tom')."""
    value = clean_general(value)
    return re.sub(r"^(engaged|married) (?!to )", r"\1 to ", value, flags=re.I)


# A job taken: "got a new part-time job", "landed the position" (then "as ..." or "at ...").
_TOOK_JOB = (rf"{_HAVE}{_ADV}(?:got|landed|accepted|took|started|began|found|secured) (?:a |an |the |my )?(?:new )?"
             r"(?:full-time |part-time )?")


def _rules(attribute: str, template: str, cleaner, *patterns: str) -> list[tuple[str, str, str, object]]:
    """One attribute's predicates that share a template and a cleaner, in the order they are tried."""
    return [(attribute, pattern, template, cleaner) for pattern in patterns]


_RULES: list[tuple[str, str, str, object]] = [
    # (attribute, predicate regex, asserted template, value cleaner), in the order they are tried
    *_rules("home", "{s} lives in {v}.", clean_place,
            rf"{_ADV}(?:lives?|living) in (?P<v>.+)",
            rf"{_BE}{_ADV}(?:living|based|settled) in (?P<v>.+)",
            rf"{_HAVE}{_ADV}(?:moved|relocated)(?: back)?(?: from (?P<prev>[^,]+?))? (?:to|into) "
            rf"(?:{_DWELLING} (?:in|on|near|outside) )?(?!{_DWELLING}\b)(?P<v>.+)",  # "into a new flat": no place said
            rf"{_HAVE}{_ADV}(?:bought|rented|found|got|purchased|moved into) {_DWELLING} (?:in|on|near|outside) (?P<v>.+)",
            rf"{_HAVE}{_ADV}settled (?:down )?in (?P<v>.+)"),
    *_rules("origin", "{s} is from {v}.", clean_place, rf"{_BE}{_ADV}(?:originally )?from (?P<v>.+)"),
    *_rules("origin", "{s} grew up in {v}.", clean_place, rf"{_ADV}grew up in (?P<v>.+)"),
    *_rules("birthplace", "{s} was born in {v}.", clean_place,  # a place: "born in 1990", "in May" are dates
            rf"{_BE}{_ADV}born(?: and raised)? in (?P<v>(?-i:[A-Z])(?!(?:{_MONTH_NAMES})\b)[\w'-]*(?: (?-i:[A-Z])[\w'-]*)*)"),
    *_rules("job", "{s} works as {v}.", clean_org, rf"(?:{_BE})?{_ADV}{_START}(?:works?|working) as (?P<v>.+)"),
    *_rules("job", "{s} is {v}.", clean_general, rf"{_BE}{_ADV}(?P<v>an? {_JOBS}(?: (?:at|for|with) {_WORKPLACE})?)$"),
    *_rules("job", "{s} works as {v}.", clean_org,
            rf"{_TOOK_JOB}(?:job|position|role|gig|career|post) as (?P<v>.+)",
            rf"{_HAVE}{_ADV}(?:started|began) as (?P<v>an? .+)"),
    *_rules("job", "{s} was promoted to {v}.", clean_org,  # "senior engineer": a rank, no article
            rf"{_HAVE}{_ADV}(?:been |was |got |just )*promoted to (?P<v>.+)"),
    *_rules("job", "{s} works as {v}.", clean_org,
            rf"{_HAVE}{_ADV}(?:been |was |got |just )*(?:hired|taken on|employed|appointed) as (?P<v>.+)"),
    *_rules("job", "{s} is {v}.", clean_general, rf"{_HAVE}{_ADV}(?:became|become|becoming) (?P<v>an? {_JOBS})\b.*"),
    *_rules("employer", "{s} works at {v}.", clean_org,
            rf"(?:{_BE})?{_ADV}{_START}(?:works?|working|employed) (?:at|for|by) (?P<v>.+)",
            rf"{_BE}{_ADV}at (?P<v>{_ORG})(?: now)?(?= as an? )",  # "I'm at Globex now as a product lead"
            rf"{_HAVE}{_ADV}(?:joined|started (?:a new job |working )?at|started with) (?P<v>{_ORG})",
            rf"{_TOOK_JOB}(?:job|position|role|gig|internship|post) (?:at|with) (?P<v>.+)",
            rf"{_HAVE}{_ADV}(?:been |was |got |just )*(?:hired|recruited|taken on|employed) (?:by|at) (?P<v>.+)",
            r"(?:my|her|his|their) (?:job|position|role)(?: (?:at|with) (?P<v>.+))?$"),
    *_rules("diet", "{s} is {v}.", clean_general,
            rf"{_BE}{_ADV}(?:an? )?(?:strict |strictly |fully )?(?P<v>{_DIETS})\b.*",
            rf"{_HAVE}{_ADV}(?:went|gone|turned|become|became|going) (?P<v>{_DIETS})\b.*"),
    *_rules("eats", "{s} eats {v}.", clean_general, rf"{_ADV}(?:eats?|drinks?) (?P<v>.+)"),  # read when denied
    *_rules("avoids", "{s} avoids {v}.", clean_general, rf"{_ADV}avoids? (?P<v>.+)"),
    *_rules("allergy", "{s} is {sev}allergic to {v}.", clean_general,
            rf"(?:{_BE})?{_ADV}(?P<sev>(?:very|severely|seriously|deathly|highly|mildly|extremely|badly) )?allergic to (?P<v>.+)"),
    *_rules("allergy", "{s} has {art} {sev}allergy to {v}.", clean_general,
            rf"{_HAVE}{_ADV}(?P<art>an?) {_SEVERITY}allergy to (?P<v>.+)"),
    *_rules("allergy", "{s} has {art} {sev}{v} allergy.", clean_general,
            rf"{_HAVE}{_ADV}(?P<art>an?) {_SEVERITY}(?P<v>[\w-]+(?: [\w-]+)?) allergy\b.*"),
    *_rules("condition", "{s} has {v}.", clean_general, rf"{_HAVE}{_ADV}(?P<v>{CONDITIONS})\b.*",
            rf"{_HAVE}{_ADV}(?:been )?(?:having|suffering from|dealing with|living with|diagnosed with) "
            rf"(?P<v>{CONDITIONS})\b.*"),
    *_rules("condition", "{s} is {v}.", clean_general, rf"{_BE}{_ADV}(?P<v>{_CONDITIONS_A})\b.*"),
    *_rules("injury", "{s}'s {v} is {adj}.", clean_general,
            rf"{_HAVE}{_ADV}(?P<verb>{'|'.join(INJURY_ADJ)}) (?:my|her|his|their|a) (?P<v>[a-z]+)\b.*"),
    *_rules("pet", "{s} {verb} {art} {sp}{named}.", clean_general,
            rf"{_HAVE}{_ADV}(?P<verb>adopted|got|bought|rescued) (?P<art>an?|another) (?:new |little |young |baby )?{_PET}"),
    *_rules("pet", "{s} has {art} {sp}{named}.", clean_general, rf"(?:have|has) {_ADV}(?P<art>an?) {_PET}"),
    *_rules("relation", "{s} is {owner}'s {rel}.", clean_general,
            rf"{_BE}(?:(?P<my>my|our)|(?P<own>[A-Z][a-z]+(?: [A-Z][a-z]+)?|the user)'s) (?P<rel>{KIN})\b(?!').*"),
    *_rules("partner", "{s} is {v}.", clean_general,
            rf"(?:{_BE})?{_ADV}(?P<v>(?:dating|seeing|going out with|in a relationship with|engaged to|married to) {_NAME})\b.*"),
    *_rules("partner", "{s} is {v}.", clean_partner,
            rf"{_HAVE}{_ADV}(?:got |just )?(?P<v>(?:engaged|married)(?: to)? {_NAME})\b.*"),
    *_rules("partner", "{s} is {v}.", clean_general, rf"{_HAVE}{_ADV}(?:are|were) (?P<v>engaged|married)$"),
    *_rules("partner", "{s} got {v}.", clean_general,  # an event: dated by its clause (lineclaims)
            rf"{_HAVE}{_ADV}(?:just )?got (?P<v>engaged|married)(?! to\b)(?:[ ,].*)?$"),
    *_rules("training", "{s} is training for {v}.", clean_general, rf"(?:{_BE})?{_ADV}training for (?P<v>.+)"),
    *_rules("learning", "{s} is learning {v}.", clean_general,
            rf"(?:{_BE})?{_ADV}learning (?P<v>.+)",
            rf"{_HAVE}{_ADV}(?:started|began|begun) (?:learning|to learn) (?P<v>.+)"),
    *_rules("plan", "{s} is {verb} to {v}.", clean_general, rf"{_BE}{_ADV}(?P<verb>planning|hoping) to (?P<v>.+)"),
    *_rules("plan", "{s} plans to {v}.", clean_general, rf"{_ADV}(?:plans?|intends?) to (?P<v>.+)"),
    *_rules("goal", "{s} wants to {v}.", clean_general, r"(?:my|her|his|their) (?:goal|dream) is to (?P<v>.+)"),
    *_rules("goal", "{s} hopes to {v}.", clean_general, rf"{_ADV}hopes? to (?P<v>.+)"),
    *_rules("goal", "{s} hopes for {v}.", clean_general, rf"{_ADV}hopes? for (?P<v>.+)"),
    *_rules("goal", "{s} dreams of {v}.", clean_general, rf"{_ADV}dreams? of (?P<v>.+)"),
    *_rules("likes", "{s} {verb3} {v}.", clean_general,
            rf"{_ADV}(?:absolutely |totally )?(?P<verb>loves?|likes?|enjoys?|adores?) (?P<v>.+)",
            rf"{_ADV}(?P<verb>prefers?) (?P<v>[^,;]+)$"),  # "..., never after 4pm": a wish, kept whole as said
    *_rules("likes", "{s} would rather {v}.", clean_general, rf"{_ADV}would rather (?P<v>(?!not\b)[^,;]+)$"),
    *_rules("dislikes", "{s} {verb3} {v}.", clean_general,
            rf"{_ADV}(?P<verb>hates?|dislikes?|detests?|cannot stand|can not stand) (?P<v>.+)"),
    *_rules("age", "{s} is {v} years old.", clean_general,  # the age now: "since she was 6" gives none
            r"(?:am|is|are) (?P<v>\d{1,3})(?: years? old| yrs old)?$",
            rf"(?:am|is|are) (?P<v>{AGE_WORDS}) (?:years? old|yrs old)$",
            rf"{_HAVE}{_ADV}turned (?P<v>\d{{1,3}}|{AGE_WORDS})\b.*"),
]
RULES = [(a, re.compile(p, re.I), t, c) for a, p, t, c in _RULES]

# Verbs that end a single-valued attribute without naming its next value: (attribute, regex).
_ENDINGS = [
    ("partner", rf"(?:{_BE})?{_HAVE}{_ADV}(?:got )?(?:split up|broke up|broken up|separated|got divorced|divorced|"
     rf"called it off|ended things)(?: (?:with|from) (?P<v>{_NAME}))?\b.*"),
    ("partner", rf"{_HAVE}{_ADV}(?:divorced|left|dumped) (?P<v>{_NAME})\b.*"),
    ("employer", rf"{_HAVE}{_ADV}(?:left|quit|resigned from|retired from|(?:got |was |been )?(?:fired|laid off|let go) (?:from|by)) "
     rf"(?:(?:my|her|his|their|our) (?:job|position|role|post) (?:at|with) )?(?P<v>{_ORG})"),
    ("employer", rf"{_HAVE}{_ADV}(?:left|quit|resigned from|lost) (?:my|her|his|their) (?:job|position|role|post)\b(?: (?:at|with) (?P<v>.+))?"),
    ("employer", rf"{_HAVE}{_ADV}(?:got |was |been )?(?:fired|laid off|let go)\b.*"),
    ("home", rf"{_HAVE}{_ADV}moved out(?: of (?P<v>.+))?$"),
    ("condition", rf"{_HAVE}{_ADV}(?:got over|recovered from|(?:been |got )?cured of|beat|beaten) "
     rf"(?:(?:my|her|his|their|the) )?(?P<v>{CONDITIONS})\b.*"),
]
ENDINGS = [(a, re.compile(p, re.I)) for a, p in _ENDINGS]
# Every rule and ending at once, groups unnamed: one match tells whether any rule can apply.
ANY_RULE = re.compile(
    "|".join(f"(?:{re.sub(r'[(][?]P<[a-z0-9_]+>', '(?:', p)})" for p in [*(r[1] for r in _RULES), *(e[1] for e in _ENDINGS)]),
    re.I,
)
