"""recall(table=...) reads facts/index.json and the table's file: a damaged or hand-edited file
is one ValueError line or no facts, never an AttributeError (a traceback at the CLI), and the
index never sends it to a file outside the scope's facts/ folder."""

from __future__ import annotations

import json

import pytest

from consolidator.retrieval.tables import table_fact_ids


def write(path, payload) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload), encoding="utf-8")


@pytest.mark.parametrize("payload", [[], "text", {"facts": {"id": "f1"}}, {"facts": ["f1"]}])
def test_a_table_file_of_another_shape_holds_no_facts(tmp_path, payload):
    scope = tmp_path / "maya"
    write(scope / "facts" / "index.json", {"tables": [{"name": "pets", "file": "facts/pets.json"}]})
    write(scope / "facts" / "pets.json", payload)
    assert table_fact_ids(scope, "pets") == set()


def test_an_index_naming_a_file_outside_the_scope_is_not_followed(tmp_path):
    write(tmp_path / "tom" / "facts" / "pets.json", {"facts": [{"id": "tom-fact"}]})
    scope = tmp_path / "maya"
    write(scope / "facts" / "index.json", {"tables": [{"name": "pets", "file": "../tom/facts/pets.json"}]})
    assert table_fact_ids(scope, "pets") == set()


def test_a_folder_where_the_index_should_be_is_named_as_no_tables(tmp_path):
    scope = tmp_path / "maya"
    (scope / "facts" / "index.json").mkdir(parents=True)
    with pytest.raises(ValueError, match="no table 'pets'"):
        table_fact_ids(scope, "pets")
