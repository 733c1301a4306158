"""The Chinese corpus of notebook 16's tiny language model, written by this project from a small grammar.

Every sentence is 〔主语〕〔时间〕〔副词〕〔动词〕〔宾语〕。 — for example 我吃苹果。 or 妈妈每天也喝茶。 — built from
the word lists below. The grammar has a long-range rule a bigram model cannot see: 小猫 and 小狗 eat and drink only
their own food (小猫吃鱼, 小狗喝水), several characters after the subject. All sentences
of the grammar are listed in a fixed order, shuffled with a fixed seed and split: 90 % for training, 10 % held out
(a held-out sentence never occurs in the training text). `generate()` rebuilds the two shipped text files
exactly (tests/test_tiny_lm.py checks it).

Licence: the word lists, the grammar and the generated text are this project's own work, under CC BY 4.0 like the
course text (LICENSE-content.md).
"""

from __future__ import annotations

from importlib import resources

import numpy as np

CORPUS_SEED = 16
HELD_OUT_SHARE = 0.1
END = "。"
FILES = {"train": "tiny_lm_train.txt", "heldout": "tiny_lm_heldout.txt"}

PEOPLE = ("我", "你", "他", "她", "我们", "妈妈", "爸爸", "老师", "小明", "同学们")
TIMES = ("", "今天", "每天", "早上", "晚上")
ADVERBS = ("", "也", "常常", "不")
PEOPLE_ACTS = {  # verb: its objects
    "吃": ("苹果", "米饭", "面条", "香蕉", "西瓜", "饺子", "面包"),
    "喝": ("水", "牛奶", "茶", "果汁", "咖啡"),
    "看": ("书", "电视", "电影", "报纸"),
    "写": ("字", "作业", "信"),
    "买": ("苹果", "书", "牛奶", "衣服", "水果"),
    "听": ("音乐", "故事"),
    "打": ("篮球", "电话"),
}
ANIMAL_ACTS = {  # the animals' own verbs and objects: what a bigram model cannot tell apart after 吃 or 喝
    "小猫": {"吃": ("鱼",), "喝": ("牛奶",)},
    "小狗": {"啃": ("骨头",), "喝": ("水",)},
}


def sentences() -> list[str]:
    """Every sentence of the grammar, once, in a fixed order."""
    out = []
    for subject in PEOPLE:
        for time in TIMES:
            for adverb in ADVERBS:
                for verb, objects in PEOPLE_ACTS.items():
                    out.extend(subject + time + adverb + verb + obj + END for obj in objects)
    for subject, acts in ANIMAL_ACTS.items():
        for time in TIMES:
            for adverb in ADVERBS:
                for verb, objects in acts.items():
                    # the animals' sentences are few: each is written 8 times so the model sees them often enough
                    out.extend(subject + time + adverb + verb + obj + END for obj in objects for _ in range(8))
    return out


def generate(seed: int = CORPUS_SEED) -> dict[str, str]:
    """The training and held-out texts: all sentences shuffled with `seed`, the first 10 % held out."""
    unique = sorted(set(sentences()))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(unique))
    cut = round(HELD_OUT_SHARE * len(unique))
    held = {unique[i] for i in order[:cut]}
    train = [s for s in sentences() if s not in held]
    train = [train[i] for i in rng.permutation(len(train))]
    heldout = [unique[i] for i in order[:cut]]
    return {"train": "".join(train), "heldout": "".join(heldout)}


def read_part(part: str) -> str:
    """The shipped text `part` ("train" or "heldout")."""
    if part not in FILES:
        raise ValueError(f"part: expected 'train' or 'heldout', got {part!r}")
    return resources.files("lnlib").joinpath(FILES[part]).read_text(encoding="utf-8")


def write(folder) -> None:
    """Write the generated texts into `folder` (tools/train_tiny_lm.py uses it)."""
    from pathlib import Path

    for part, text in generate().items():
        (Path(folder) / FILES[part]).write_text(text + "\n", encoding="utf-8")
