"""The offline extractor's third-person rewriting: agreement, quotations, hedges, contractions, questions."""

from __future__ import annotations

from datetime import timedelta

import pytest

from consolidator.model.offline.clauses import Speakers, rewrite
from consolidator.model.offline.text import normalise
from consolidator.model.offline.lineclaims import claims_of_lines
from consolidator.model.schemas import FactExtractionRequest, KnownFact, Line
from tests.support.offline_kit import AT, MODEL, chat, fact_texts, image, said_by_caroline


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("I hear the class you're taking is packed with healthy recipes.",
         "Caroline hears the class Melanie is taking is packed with healthy recipes (2023-05-07)."),
        ("I know the shoes you were wearing at the Boston marathon were red.",
         "Caroline knows the shoes Melanie was wearing at the Boston marathon were red (2023-05-07)."),
        ("We all need an outlet to express our thoughts and feelings.",
         "Caroline needs an outlet to express their thoughts and feelings (2023-05-07)."),
        ("I focus on landscapes and portraits in my painting classes.",
         "Caroline focuses on landscapes and portraits in their painting classes (2023-05-07)."),
    ],
)
def test_the_verb_agrees_with_the_name_a_pronoun_became(said, fact):
    """'you're' inside a clause, 'we all', and stems that end like a past form ('need', 'focus')."""
    assert fact in said_by_caroline(said)


def test_get_after_a_you_that_became_a_name_agrees():
    """'as you get stronger' said to Ana: 'as Ana gets stronger' ("get" is a stopword, yet a verb,
    not a word that follows "you" uninflected as "all" does in "what you all did")."""
    speakers = Speakers("Tomas", "Ana")
    assert rewrite("start small, and as you get stronger, push harder", speakers, False) == (
        "start small, and as Ana gets stronger, push harder")
    assert rewrite("what you all did", speakers, False) == "what Ana all did"


@pytest.mark.parametrize("said, expanded", [
    ("He did great, didn't he?", "He did great, didn't he?"),
    ("Why don't we go hiking?", "Why don't we go hiking?"),
    ("Isn't it lovely?", "Isn't it lovely?"),
    ("I didn't go, and she can't swim.", "I did not go, and she cannot swim."),
    ("I'd better go, we'd better hurry.", "I had better go, we had better hurry."),  # "'d better": had, not would
    ("Both of us love it, a trip for both of us.", "We both love it, a trip for both of them."),  # no "both of Maya"
])
def test_a_negative_before_its_subject_stays_contracted(said, expanded):
    """'didn't he?', 'why don't we': a question's inverted negative is no 'did not he'."""
    assert normalise(said) == expanded


def test_a_clause_left_with_a_bare_clitic_is_no_fact():
    """'tomorrow's gonna be a blast' less its date word reads "'s gonna be a blast": no fact of it;
    the sentence's other clauses still count."""
    facts = said_by_caroline("You've come so far since we last talked, and tomorrow's gonna be a blast! "
                             "I bought a red dress for the party.")
    assert not any("'s gonna" in f or "'s going" in f for f in facts), facts
    assert any("bought a red dress" in f for f in facts), facts


def test_a_quotation_keeps_its_own_pronouns():
    """A line quoted from a film is what the film says, not what Caroline does, in its own words
    (the contraction too: a quotation is never normalised)."""
    facts = said_by_caroline('"I\'m the king of the world" - that line from Titanic gets me every time!')
    assert any('"I\'m the king of the world"' in f for f in facts), facts
    assert not any("Caroline is the king" in f or "Caroline am" in f for f in facts), facts


def test_a_hedge_set_off_by_commas_is_no_statement():
    """'or, I guess, post-accident recovery' says nothing about the speaker."""
    assert said_by_caroline("Perfect for after a hike or, I guess, post-accident recovery, huh?") == []


def test_the_s_of_a_perfect_is_has():
    """"It's been a dream" is "it has been", never "it is been"."""
    (fact,) = said_by_caroline("It's been a dream to adopt and give a loving home to kids in Ohio.")
    assert "It has been a dream" in fact and "is been" not in fact


@pytest.mark.parametrize("said, expanded", [
    ("Mom's in hospital again.", "Mom is in hospital again."),
    ("My brother's a nurse and Ana's not coming.", "My brother is a nurse and Ana is not coming."),
    ("Rui's got a new job; Ana's never been to Porto.", "Rui has got a new job; Ana has never been to Porto."),
    ("Tiago's visiting next week.", "Tiago is visiting next week."),
    # a possessive stays one: a noun follows, or it is someone's home ("at Ana's")
    ("Ana's car is in the shop.", "Ana's car is in the shop."),
    ("Ana's back hurts and Mom's cooking is great.", "Ana's back hurts and Mom's cooking is great."),
    ("Dinner at Ana's on Monday, then to my mom's on Sunday.", "Dinner at Ana's on Monday, then to my mom's on Sunday."),
    ("Maya's in-laws are here. Let's go.", "Maya's in-laws are here. Let's go."),
])
def test_the_s_of_a_name_or_noun_is_a_verb_where_no_possession_can_be(said, expanded):
    """After "Mom's", a preposition, an article, "not" or a perfect's participle can follow only
    "is" or "has": "Mom's in hospital" was kept as written, and read as no state of anyone."""
    assert normalise(said) == expanded


@pytest.mark.parametrize(("said", "shown"), [("Got any other objects that you treasure, like that necklace?", "a bowl"),
                                             ("Been to the new museum in Boston yet?", "a museum hall")])
def test_a_question_before_a_photo_is_still_a_question(said, shown):
    """A question that drops its "you" gives no fact, even with a photo after its question mark."""
    assert said_by_caroline(said, shown) == []


@pytest.mark.parametrize(
    ("said", "shown", "fact"),
    [
        ("Last night I made this grilled dish!", "a photo of a plate of salmon and rice",
         "Caroline made this grilled dish (photo: a plate of salmon and rice) (2023-05-06)."),
        ("I painted it after I visited the coast.", "a photo of a painting of a lighthouse",
         "Caroline painted it (photo: a painting of a lighthouse) after Caroline visited the coast (2023-05-07)."),
    ],
)
def test_this_names_the_photo_its_sentence_shares(said, shown, fact):
    """'this' and 'it' in a sentence that shares a photo (an image attachment, which follows
    the text's last sentence) point at what the photo shows."""
    assert fact in said_by_caroline(said, shown)


@pytest.mark.parametrize(
    "said",
    [
        # the photo follows another sentence: 'it' may be anything
        ("I painted it after I visited the coast. We drove back at night.", ("a photo of a lighthouse",)),
        # two photos: which one is meant would be a guess
        ("I painted it after I visited the coast.", ("a photo of a lighthouse", "a photo of a harbour")),
    ],
)
def test_a_pointer_stays_a_pointer_when_the_photo_it_means_is_unclear(said):
    facts = said_by_caroline(said[0], *said[1])
    assert any(f.startswith("Caroline painted it after") for f in facts), facts
    assert not any("(photo:" in f for f in facts), facts


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("Here's our latest work from last weekend.", "a photo of a painting of a lighthouse at dusk"),
        ("By the way, take a look at this!", "a photo of a painting of a lighthouse at dusk"),
        ("Oh, check it out.", "a picture of a painting of a lighthouse at dusk"),
        ("Look what we finished yesterday!", "a painting of a lighthouse at dusk"),
    ],
)
def test_a_sentence_that_only_presents_its_photo_gives_the_photo_as_the_fact(said, shown):
    """'Here's ...', 'take a look', 'check it out', 'look what ...' state nothing a clause rule reads;
    the photo they present is what was said (its medium words dropped, as a summary's photo is)."""
    assert said_by_caroline(said, shown) == ["Caroline shared a photo of a painting of a lighthouse at dusk (2023-05-07)."]


@pytest.mark.parametrize(
    ("said", "photos"),
    [
        ("Here's our latest work from last weekend.", ()),  # nothing shown: nothing to keep
        ("Here's our latest work from last weekend.", ("a photo of a lighthouse", "a photo of a harbour")),  # which one?
        ("Here's our latest work from last weekend. We drove back at night.", ("a photo of a lighthouse",)),
        ("Here's one!", (" ",)),  # a caption with nothing in it
        ("Here's one!", ("a photo of",)),  # a caption naming only its medium
        ("Here's one!", ("...",)),
    ],
)
def test_a_presenting_sentence_without_its_one_photo_gives_no_fact(said, photos):
    assert not any("shared a photo" in f for f in said_by_caroline(said, *photos))


def test_a_photo_a_fact_already_names_is_not_presented_again():
    """'Here's dinner: I made this grilled dish!' presents its photo, and its clause names it through
    'this': one claim of the photo, not two (read before the novelty filter, which would also drop a
    repeat that says no more)."""
    lines = chat(("Caroline", "Here's dinner: I made this grilled dish!"), ("Melanie", "Wow, that's great!"))
    lines[0] = lines[0].model_copy(update={"attachments": [image("a photo of a plate of salmon and rice")]})
    texts = [c.text for c in claims_of_lines(lines)]
    assert [t for t in texts if "salmon" in t] == ["Caroline made this grilled dish (photo: a plate of salmon and rice) (2023-05-07)."]


def test_this_month_in_a_fact_is_written_out():
    """'this month' in a fact read a year later says nothing: the month is written beside it (a
    summary's header dates its own lines, so summaries leave it)."""
    assert said_by_caroline("I lost my job at the bakery this month.") == [
        "Caroline lost their job at the bakery this month (May 2023)."]


@pytest.mark.parametrize(("question", "reply", "fact"), [
    ("Ah, they're adorable! What are their names?", "Pip and Bruno! They are so playful.",
     "Tomas said: Their names are Pip and Bruno (2023-05-07)."),
    ("What's your dog's name?", "Rex!", "Tomas said: Tomas's dog's name is Rex (2023-05-07)."),
    ("What\u2019s your cat\u2019s name?", "Miso!", "Tomas said: Tomas's cat's name is Miso (2023-05-07)."),
    ("And what's your dog's name, by the way?", "Pip!", "Tomas said: Tomas's dog's name is Pip (2023-05-07)."),
])
def test_names_given_alone_to_a_question_for_names_are_kept_in_its_words(question, reply, fact):
    """A chat answers "What are their names?" with the names only: the reply states nothing, so
    the names became no fact; the question's words make the statement."""
    assert fact_texts(chat(("Ana", question), ("Tomas", reply)))[0] == fact


def test_names_given_alone_to_the_agents_question_are_kept():
    """The agent asks, the user answers with the name alone: the commonest shape of an agent's
    log. The fact is the user's, in the question's words; the agent's line states nothing."""
    asked = Line(id="a1", at=AT, role="assistant", speaker=None, text="Lovely! What's your dog's name?")
    for speaker, owner in (("Tomas", "Tomas"), (None, "The user")):
        reply = Line(id="u1", at=AT + timedelta(minutes=1), role="user", speaker=speaker, text="Rex!")
        request = FactExtractionRequest(scope="s", messages=[asked, reply], neighbours=[])
        facts = MODEL.extract_facts(request).facts
        assert [(f.text, f.source_ids) for f in facts] == [
            (f"{owner} said: {owner}'s dog's name is Rex (2023-05-07).", ["u1"])], facts


@pytest.mark.parametrize(("question", "reply"), [
    ("What's your dog's name?", "Wow!"),  # no name
    ("What's your dog's name?", "Ana!"),  # the asker's own name: said to her
    ("How was the trip?", "Pip and Bruno!"),  # no question for names
])
def test_a_reply_that_gives_no_names_to_a_question_for_them_is_no_fact(question, reply):
    assert fact_texts(chat(("Ana", question), ("Tomas", reply))) == []


def _agent_chat(*turns: tuple[str, str, int]) -> list[Line]:
    """(role, text, minute) turns of Maya and her agent."""
    return [Line(id=f"m{i}", at=AT + timedelta(minutes=minute), role=role, speaker="Maya" if role == "user" else None,
                 text=text) for i, (role, text, minute) in enumerate(turns)]


def _facts(lines: list[Line], neighbours: list[KnownFact] = ()) -> list[str]:
    return [f.text for f in MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines,
                                                                      neighbours=list(neighbours))).facts]


def test_she_at_the_start_of_a_reply_is_whom_the_speakers_last_line_was_about():
    """Maya names her sister, the agent asks, Maya answers "She's a nurse": the nurse is Ana."""
    lines = _agent_chat(("user", "My sister Ana is visiting from Lisbon on Saturday.", 0),
                        ("assistant", "Lovely! Where will she stay?", 1),
                        ("user", "With us. She's a nurse, so she only has the weekend off.", 2))
    assert "Ana is a nurse." in _facts(lines)


def test_she_is_nobody_when_the_line_between_names_someone_else_or_the_talk_went_cold():
    """The agent's line names Bruno (a known person): "she" may be either. Or an hour passed."""
    bruno = [KnownFact(id="f1", text="Bruno is Maya's brother.", similarity=0.5)]
    named = _agent_chat(("user", "My sister Ana is visiting from Lisbon on Saturday.", 0),
                        ("assistant", "Lovely! Is Bruno coming too?", 1),
                        ("user", "No. She's a nurse, so she only has the weekend off.", 2))
    assert not any("nurse" in t for t in _facts(named, bruno))
    cold = _agent_chat(("user", "My sister Ana is visiting from Lisbon on Saturday.", 0),
                       ("assistant", "Lovely!", 1), ("user", "She's a nurse, by the way.", 61))
    assert not any("nurse" in t for t in _facts(cold))


@pytest.mark.parametrize(("said", "fact"), [
    ("I ended up in the ER with a severe stomachache. Turns out, it was gastritis, which was pretty alarming.",
     "Caroline ended up in the ER with a severe stomachache; turns out it was gastritis (2023-05-07)."),
    ("We drove to the old mill last week. Turned out that the place was closed for good.",
     "Caroline drove to the old mill; turned out the place was closed for good (week of 2023-04-24)."),
])
def test_what_turned_out_ends_the_sentence_before_it(said, fact):
    """Alone, "it was gastritis" has no subject and would be lost (and ", it was X" read as an evaluation)."""
    assert fact in said_by_caroline(said)


def test_a_result_that_only_judges_stays_apart():
    """"It turned out to be delicious" says how it went, nothing found out: the fact is the cooking."""
    facts = said_by_caroline("I grilled the salmon with some veggies. It turned out to be delicious!")
    assert facts == ["Caroline grilled the salmon with some veggies (2023-05-07)."]


def test_they_means_the_group_the_speaker_named_last_across_the_agents_question():
    """"my parents" are Maya's: what "they" did is a fact of theirs, in a plain clause."""
    lines = _agent_chat(("user", "My parents are moving to Porto next year.", 0),
                        ("assistant", "Exciting! Have they found a place yet?", 1),
                        ("user", "Yes, they bought a flat near the river.", 2))
    assert "Maya's parents bought a flat near the river (2023-05-07)." in _facts(lines)


def test_a_group_said_with_the_is_kept_in_the_speakers_name():
    """"the kids" may be anyone's: Maya said it, and the fact says so."""
    lines = _agent_chat(("user", "Yesterday I took the kids to the aquarium.", 0),
                        ("assistant", "Fun! What did they like most?", 1),
                        ("user", "They loved the sea turtles and the jellyfish tank.", 2))
    assert "Maya said: The kids loved the sea turtles and the jellyfish tank (2023-05-07)." in _facts(lines)


@pytest.mark.parametrize(("said", "fact"), [
    ("My kids love dinosaurs and volcanoes.", "Caroline's kids love dinosaurs and volcanoes (2023-05-07)."),
    ("The twins started kindergarten in Lisbon.", "Caroline said: The twins started kindergarten in Lisbon (2023-05-07)."),
    ("Oh, and the dentist moved my appointment to Thursday at 3.",
     "Caroline's appointment was moved to Thursday (2023-05-11) at 3 by the dentist (2023-05-07)."),  # restate.restate
    ("The vet is from Spain.", "Caroline said: The vet is from Spain (2023-05-07)."),
    ("The pediatrician said it's just a virus.", "Caroline said: The pediatrician said it is a virus (2023-05-07)."),
])
def test_a_groups_clause_is_plain_never_a_rule_template_for_one(said, fact):
    """The attribute templates agree with one person ("loves") and state a named one's details; a
    group's clause, or an unnamed person's by their role ("the dentist"), is plain, in the speaker's name."""
    assert fact in said_by_caroline(said)


def test_a_list_of_people_is_no_group_subject():
    """"My friends, family and mentors": three groups listed, not "Caroline's friends family ..."."""
    assert not any("friends family" in f for f in said_by_caroline("My friends, family and mentors are my rocks."))
    facts = said_by_caroline("My friends, family and mentors are my rocks - they push me to keep painting murals.")
    assert not any("Caroline's friends" in f for f in facts)  # "they" is all three, no group of one word


def test_what_the_photo_shows_gives_a_pointing_clause_its_substance():
    """"I made this in class!" says little; with its photo the fact names the cup. Without one, no fact."""
    assert said_by_caroline("I made this in class!", "a photo of a cup with a dog face on it") == [
        "Caroline made this (photo: a cup with a dog face on it) in class (2023-05-07)."]
    assert said_by_caroline("I made this in class!") == []
    assert "Caroline said: The twins made this (photo: a vase with blue and yellow stripes) (2023-05-07)." in \
        said_by_caroline("The twins made this!", "a photo of a vase with blue and yellow stripes")


def test_they_is_no_group_once_a_thing_was_spoken_of_or_a_line_of_no_one_came_between():
    """"Flowers bring joy. They ...": the flowers, not the kids. A line about the weather between
    ends the carry: "They loved the penguins" may mean anyone then."""
    flowers = _agent_chat(("user", "I took the kids to the flower market today.", 0),
                          ("assistant", "Lovely! Did you buy any?", 1),
                          ("user", "Flowers bring joy. They represent growth and remind us of spring weddings.", 2))
    assert not any("kids represent" in f.lower() for f in _facts(flowers))
    weather = _agent_chat(("user", "I took the kids to the zoo today.", 0), ("assistant", "Nice!", 1),
                          ("user", "The weather was lovely all afternoon.", 2), ("assistant", "Great.", 3),
                          ("user", "They loved the penguins and the sea lions.", 4))
    assert not any("penguins" in f for f in _facts(weather))
    near = _agent_chat(("user", "I took the kids to the zoo today.", 0), ("assistant", "Nice! What did they like?", 1),
                       ("user", "They loved the penguins and the sea lions.", 2))
    assert "Maya said: The kids loved the penguins and the sea lions (2023-05-07)." in _facts(near)


@pytest.mark.parametrize(("said", "facts"), [
    ("It all started when a friend of mine gave me an old guitar, and that's when I started writing songs.",
     ["Caroline's friend gave Caroline an old guitar (2023-05-07).", "Caroline started writing songs (2023-05-07)."]),
    ("A cousin of mine runs a bakery in Porto.", ["Caroline's cousin runs a bakery in Porto (2023-05-07)."]),
])
def test_a_narrative_frame_and_a_relative_of_mine_leave_the_clause_they_wrap(said, facts):
    """"It all started when", "that's when": what happened follows. "A cousin of mine" is "my cousin"."""
    assert said_by_caroline(said) == facts


def test_a_relative_named_after_his_or_her_is_the_relative_of_whom_the_line_before_named():
    """Tiago's wife, not Maya's; and "she" is Ines, not Tiago. The fragment naming her is no fact of its own."""
    lines = _agent_chat(("user", "My brother Tiago is coming too, he's a chef in Porto.", 0),
                        ("assistant", "Great! Is he bringing anyone?", 1),
                        ("user", "His wife Ines. She's pregnant, due in June!", 2))
    facts = _facts(lines)
    assert {"Ines is Tiago's wife.", "Ines is pregnant."} <= set(facts)
    assert not any("Tiago is pregnant" in f or "His wife" in f for f in facts)
    alone = _agent_chat(("user", "Her sister Ana is a nurse.", 0))  # whose? no one was named before
    assert not any("'s sister" in f for f in _facts(alone))


def test_a_group_named_in_a_sentence_about_a_thing_is_whom_they_means_next():
    lines = _agent_chat(("user", "Look what the kids made for grandma at the pottery studio!", 0),
                        ("assistant", "Adorable!", 1),
                        ("user", "They glazed every single bowl in bright turquoise.", 2))
    assert "Maya said: The kids glazed every single bowl in bright turquoise (2023-05-07)." in _facts(lines)


@pytest.mark.parametrize(("said", "facts"), [
    ("My mom's birthday is on the 22nd. She's turning 70!",
     ["Caroline's mom's birthday is on the 22nd (2023-05-07).", "Caroline's mom is turning 70 (2023-05-07)."]),
    ("My mom is a nurse.", ["Caroline's mom is a nurse."]),  # a relative, though unnamed, has a job
    ("I visited my grandma. She turned 90 last week.",
     ["Caroline visited their grandma (2023-05-07).", "Caroline's grandma is 90 years old."]),
])
def test_an_unnamed_relative_is_a_person_and_whom_she_or_he_means_next(said, facts):
    assert said_by_caroline(said) == facts


def test_she_carries_an_unnamed_relative_across_the_agents_question():
    lines = _agent_chat(("user", "Quick one: my mom's birthday is on the 22nd.", 0),
                        ("assistant", "Any gift ideas?", 1),
                        ("user", "She loves gardening and old French films.", 2))
    assert "Maya's mom loves gardening and old French films." in _facts(lines)


def test_she_carries_through_a_line_that_speaks_of_her_without_naming_her():
    """"Her youngest is 4" names no one but is about Joana: the next line's "she" is still Joana
    (a line of no one would end the carry; a thing said of ends "they", never "she")."""
    lines = _agent_chat(("user", "Also my sister Joana is visiting this weekend with her two kids.", 0),
                        ("assistant", "Fun! Anything to prepare?", 1),
                        ("user", "I need to buy a booster seat. Her youngest is 4.", 2),
                        ("user", "And she's vegan, so dinner ideas would help.", 3))
    assert "Joana is vegan." in _facts(lines)


@pytest.mark.parametrize(("said", "facts"), [
    ("My nephew Tiago, his bday is on the 30th.",
     ["Tiago is Caroline's nephew.", "Tiago's birthday is on the 30th (2023-05-07)."]),
    ("I called Ana and her mom answered the phone.",
     ["Caroline called Ana (2023-05-07).", "Ana's mom answered the phone (2023-05-07)."]),
    ("I saw Bruno and his sister at the market.", ["Caroline saw Bruno and his sister at the market (2023-05-07)."]),
])
def test_his_or_her_thing_belongs_to_the_person_just_named(said, facts):
    """"her mom answered" was glued to the speaker ("Caroline her mom answered the phone")."""
    assert said_by_caroline(said) == facts


def test_a_line_naming_someone_else_ends_whom_she_or_he_meant():
    """"It was Matt Patterson, he is so talented! His voice ..." is not the daughter the line before named."""
    lines = _agent_chat(("user", "My daughter and I went to a concert last night.", 0),
                        ("assistant", "Fun! Who played?", 1),
                        ("user", "It was Matt Patterson, he is so talented! His voice and songs were amazing.", 2))
    assert not any("daughter's voice" in f or "daughter is so talented" in f for f in _facts(lines))


def test_chat_spelling_is_read_as_written_out():
    """"im allergic to penicillin" gave no allergy (a critical fact), only a quote."""
    lines = _agent_chat(("user", "also im allergic to penicillin, just found out at the clinic", 0))
    assert "Maya is allergic to penicillin." in _facts(lines)


def test_an_in_law_is_one_relative_and_an_age_in_the_past_is_none():
    """"father-in-law" read as "father" + "-in-law"; "since she was 6" gave "Lia is 6 years old"."""
    lines = _agent_chat(("user", "My father-in-law helped with the shelves, he's a retired carpenter.", 0),
                        ("assistant", "Is he local?", 1), ("user", "He lives in Braga, about an hour away.", 2),
                        ("user", "My daughter Lia plays the cello. She's been playing since she was 6.", 3))
    facts = _facts(lines)
    assert {"Maya's father-in-law is a retired carpenter.", "Maya's father-in-law lives in Braga."} <= set(facts)
    assert not any("years old" in f or "father he" in f for f in facts)


def test_a_named_pet_is_whom_she_means_and_a_pronoun_with_no_one_is_no_clause_of_the_last_subject():
    """"my cat Luna had surgery yesterday, she swallowed a hair tie" gave "Luna she swallowed a hair tie"."""
    facts = said_by_caroline("My cat Luna had to have surgery yesterday, she swallowed a hair tie.")
    assert "Luna swallowed a hair tie (2023-05-06)." in facts  # dated by its sentence's "yesterday"
    assert not any(" she " in f for f in said_by_caroline("I went to the market, she was selling figs."))
