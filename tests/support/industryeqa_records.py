"""IndustryEQA annotation records written from the field list and example records of benchmarks.md §2.1.

No IndustryEQA file may be vendored (no licence), so the import and export tests read these: ids 1 and 118
(small split, string status flags, 118 with the extra keys ``model`` and ``difficulty``), 500 (no human) and
1344 (large split).
"""

IEQA_RECORDS = [
    {"question_id": 1, "type": "Human Safety", "question": "What do the workers wear on their heads?",
     "direct_answer": "Baseball caps.", "reasoning_answer": "The visible workers wear baseball caps.",
     "path": "data/small/human_1/small_01/video_01.mp4", "transformed_status": "1", "reasoning_status": "1"},
    {"question_id": 118, "type": "Equipment Safety",
     "question": "Does the pallet rack leave about 18 in of flue space to the wall for sprinklers?",
     "direct_answer": "No", "reasoning_answer": "Rack and cartons sit flush against the wall.",
     "path": "data/small/human_2/small_01/video_01.mp4", "transformed_status": "1", "model": "o3",
     "difficulty": "complex", "reasoning_status": "1"},
    {"question_id": 500, "type": "Spatial Understanding", "question": "Is the aisle left of the rack clear?",
     "direct_answer": "Yes.", "reasoning_answer": "Nothing blocks it.",
     "path": "data/small/no_human/small_07/video1.mp4", "transformed_status": "0", "reasoning_status": "0"},
    {"question_id": 1344, "type": "Object Recognition",
     "question": "What is the primary function of the blue wheeled machines along the wall?",
     "direct_answer": "Air compression.", "reasoning_answer": "They are portable air compressors.",
     "path": "data/large/human/large_08/large03.mp4", "transformed_status": "0", "reasoning_status": "0"},
]
