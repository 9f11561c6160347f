"""Small excerpts of each published benchmark's annotation file, in the authors' exact
layout (keys, nesting, value types, id schemes), written from their published schema
about the test lecture of `memory_stream` (so a real memory can answer them).

Not a test module: imported by tests/test_benchmark_datasets.py and test_bench_dataset.py.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

CODE_OPTIONS = ["A. GREEN TIGER 7.", "B. PURPLE ELEPHANT 42.", "C. RED FOX 9.", "D. BLUE WHALE 3."]


def streamingbench_real() -> list:
    """questions_real.json / questions_omni.json: one entry per question."""
    return [
        {"time": "[0:00:00 - 0:00:14]",
         "questions": [{"task_type": "Text Recognition",
                        "question": "What does the slide say the plants turn into sugar?",
                        "time_stamp": "00:00:12", "answer": "A",
                        "options": ["A. Light.", "B. Water.", "C. Rocks.", "D. Salt."],
                        "required_ability": "working memory"}],
         "video_categories": "lecture", "video_path": "./videos/sample_1_real.mp4"},
        {"time": "[0:00:36 - 0:00:48]",
         "questions": [{"task_type": "Text Recognition",
                        "question": "What is the secret code on the screen right now?",
                        "time_stamp": "00:00:46", "answer": "B", "options": CODE_OPTIONS,
                        "required_ability": "working memory"}],
         "video_categories": "lecture", "video_path": "./videos/sample_1_real.mp4"},
    ]


def streamingbench_sqa() -> list:
    """questions_sqa.json: a list of lists (one per video); options without letters."""
    return [[
        {"time": "[0:00:00 - 0:00:26]",
         "questions": [{"task_type": "Sequential Question Answering",
                        "question": "Where does water evaporate from?",
                        "time_stamp": "00:00:25", "answer": "C",
                        "options": ["Mountains.", "Deserts.", "The oceans.", "Forests."],
                        "required_ability": "episodic memory"}],
         "video_categories": "lecture", "video_path": "./videos/sample_2_sqa.mp4"},
        {"time": "[0:00:26 - 0:00:36]",
         "questions": [{"task_type": "Sequential Question Answering",
                        "question": "Where is the guest who came after the topic of the last "
                                    "question from?",
                        "time_stamp": "00:00:35", "answer": "A",
                        "options": ["Lisbon.", "Paris.", "Tokyo.", "Cairo."],
                        "required_ability": "episodic memory"}],
         "video_categories": "lecture", "video_path": "./videos/sample_2_sqa.mp4"},
    ]]


def streamingbench_proactive() -> list:
    """questions_proactive.json: ground-truth time and output, no options or answer."""
    return [
        {"time": "[0:00:30 - 0:00:48]",
         "questions": [{"task_type": "Proactive Output",
                        "question": "When the secret code appears on the screen, output "
                                    "\"PURPLE ELEPHANT 42\".",
                        "time_stamp": "00:00:30", "ground_truth_time_stamp": "00:00:37",
                        "ground_truth_output": "PURPLE ELEPHANT 42",
                        "required_ability": "working memory"}],
         "video_categories": "lecture", "video_path": "./videos/sample_3_proactive.mp4"},
    ]


CSV_FIELDS = ["question_id", "task_type", "question", "time_stamp", "answer", "options",
              "frames_required", "temporal_clue_type"]


def streamingbench_csv_rows() -> list[dict]:
    """Real_Time_Visual_Understanding.csv of the release (options: a Python list literal)."""
    return [{"question_id": "Real-Time Visual Understanding_sample_1_1",
             "task_type": "Text Recognition",
             "question": "What is the secret code on the screen right now?",
             "time_stamp": "00:00:46", "answer": "B", "options": str(CODE_OPTIONS),
             "frames_required": "single", "temporal_clue_type": "Concurrent"}]


def write_csv(path: Path, rows: list[dict], fields=CSV_FIELDS) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fields)
        writer.writeheader()
        writer.writerows(rows)
    return path


def ovobench() -> list:
    """data/ovo_bench_new.json: backward, real-time and forward items."""
    return [
        {"id": 0, "task": "EPM", "video": "lecture/lecture.mp4", "realtime": 30,
         "question": "What did the lecture explain before the guest was introduced?",
         "answer": "The water cycle", "options": ["Volcanoes", "The water cycle",
                                                  "Secret codes", "Football"], "gt": 1},
        {"id": 1319, "task": "OCR", "video": "lecture/lecture.mp4", "realtime": 46.2,
         "question": "What is the code written on the slide?",
         "answer": "PURPLE ELEPHANT 42", "options": ["GREEN TIGER 7", "PURPLE ELEPHANT 42",
                                                     "RED FOX 9", "BLUE WHALE 3"], "gt": 1},
        {"id": 1468, "task": "CRR", "video": "lecture/lecture.mp4",
         "question": "What is the secret code?", "answer": "PURPLE ELEPHANT 42",
         "ask_time": 5, "clue_time": 38,
         "test_info": [{"realtime": 5, "type": 0}, {"realtime": 46, "type": 1}]},
        {"id": 1558, "task": "REC", "video": "lecture/lecture.mp4", "activity": "clap",
         "start_times": [6], "end_times": [17],
         "test_info": [{"realtime": 17, "count": 0}, {"realtime": 32.0, "count": 0}]},
    ]


def mlvu_dev_choice() -> list:
    """json/2_needle.json of the dev set."""
    return [{"video": "needle_1.mp4", "duration": 48.0,
             "question": "Who is the guest speaker of the lecture?",
             "candidates": ["Doctor Smith", "Professor Zanzibar", "Mister Jones", "Miss Lee"],
             "answer": "Professor Zanzibar", "question_type": "findNeedle"}]


def mlvu_dev_open() -> list:
    """json/8_sub_scene.json of the dev set (open-ended, with scoring points)."""
    return [{"video": "subPlot_1.mp4", "duration": 48.0,
             "question": "Please describe the scene where the water cycle is explained.",
             "answer": "A slide about the water cycle; water evaporates and falls as rain.",
             "question_type": "subPlot",
             "scoring_points": ["Water evaporates from the oceans", "It falls again as rain"]}]


def mlvu_test() -> list:
    """test_question.json of the test set: question_id, no answer."""
    return [{"question_id": "NQA_0", "question_type": "needleQA", "video": "needle_1.mp4",
             "duration": 48.0, "question": "What is the secret code in the video?",
             "candidates": ["GREEN TIGER 7", "RED FOX 9", "PURPLE ELEPHANT 42", "BLUE WHALE 3",
                            "BLACK CAT 1", "WHITE OWL 5"]}]


def vnbench() -> list:
    """The VNBench annotation file: one entry per try, options shuffled per try."""
    opts = ["PURPLE ELEPHANT 42", "GREEN TIGER 7", "RED FOX 9", "BLUE WHALE 3"]
    out = []
    for t in range(4):
        shuffled = opts[t:] + opts[:t]
        out.append({"video": "VNBench/v_lecture_ret_insert1.mp4",
                    "question": "What is the secret code shown in the video?",
                    "options": shuffled, "gt": "PURPLE ELEPHANT 42", "type": "ret_insert1",
                    "try": t})
    return out


def vniah() -> list:
    """vision_niah/needle_datasets/dataset.json (needle images in images/ beside it)."""
    return [{"path": "selenium.png",
             "prompt": "\nFind the frame with the image of Selenium tablets. How many mg "
                       "does each tablet contain?\nA. 100 mg\nB. 200 mg\nC. 300 mg\nD. 400 "
                       "mg\nAnswer with the option's letter from the given choices directly.",
             "answer": "B"}]


def write_json(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=4))
    return path
