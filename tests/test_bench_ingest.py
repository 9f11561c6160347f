"""``venus bench ingest``: the figures it derives, and one short real run end to end."""

from __future__ import annotations

import json

import pytest

from memory.store.records import ChunkRecord
from venus.bench.ingest import critical_path, ocr_reads, variants


def test_the_critical_path_is_the_busiest_thread_or_the_cpu_over_the_cores():
    stages = {"decode": 30.0, "keyframes": 5.0, "embed": 10.0, "asr": 120.0, "ocr": 50.0,
              "vad": 8.0}
    cp = critical_path(stages, cores=2)
    assert cp["bound"] == "asr" and cp["seconds_per_h"] == 120.0  # > 223 s of CPU / 2
    assert cp["chains_s_per_h"] == {"caller": 45.0, "asr": 120.0, "ocr": 50.0, "vad": 8.0}
    cpu = critical_path({**stages, "asr": 60.0}, cores=2)
    assert cpu["bound"] == "cpu" and cpu["seconds_per_h"] == pytest.approx(163 / 2)


def test_variants_are_labelled_by_what_varies():
    runs = variants(["alone", "overlapped"], "1,2", "", "cpu")
    assert list(runs) == ["alone/asr1", "alone/asr2", "overlapped/asr1", "overlapped/asr2"]
    assert runs["overlapped/asr2"].asr_threads == 2 and runs["alone/asr1"].batch_seconds is None
    assert list(variants(["overlapped"], "", "30,120", "cpu")) == \
        ["overlapped/batch30", "overlapped/batch120"]


def test_ocr_reads_count_key_frames_lines_and_repeats():
    def chunk(i, kf, text):
        return ChunkRecord(i, float(i), i + 1.0, (), kf, text)
    chunks = [chunk(0, 0, "A\nB"), chunk(1, 0, "A\nB"), chunk(2, 2, "A\nB"), chunk(3, 3, ""),
              chunk(4, 4, "C")]
    assert ocr_reads(chunks) == {"frames": 4, "lines": 5, "chars": 5, "empty": 1,
                                 "same_as_previous": 1}


@pytest.mark.slow
def test_a_short_run_prints_the_stage_table_and_writes_the_json(tmp_path, capsys):
    from venus.cli import main

    out = tmp_path / "ingest.json"
    code = main(["bench", "ingest", "--minutes", "0.5", "--lectures", "sample",
                 "--work", str(tmp_path / "work"), "--json", str(out)])
    assert code in (0, None)
    printed = capsys.readouterr().out
    assert "critical path" in printed and "TOTAL" in printed and "asr" in printed
    doc = json.loads(out.read_text())
    runs = doc["lectures"]["sample"]["runs"]
    assert set(runs) == {"alone", "overlapped"}
    assert runs["alone"]["stage_cpu_s_per_h"]["asr"] > 0
    assert doc["x_realtime"]["sample"] > 0 and doc["machine"]["cores"]
