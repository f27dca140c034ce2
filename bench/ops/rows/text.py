"""String ops (kernels/text/): a text pipeline's normalizing, splitting, joining and
matching over 10,000 short strings."""

import numpy as np
from cases import In, OpCase

WORDS = np.array(
    [f"The Quick brown fox {i} jumps Over the lazy dog {i % 97}" for i in range(10000)], np.str_
)

ROWS = [
    OpCase(
        "StringNormalizer lower [10000]",
        "StringNormalizer",
        [In((10000,), np.str_, values=WORDS)],
        {"case_change_action": "LOWER", "locale": "C.UTF-8"},
        opset=10,
    ),
    OpCase(
        "StringNormalizer stopwords [1,10000]",
        "StringNormalizer",
        [In((1, 10000), np.str_, values=WORDS[None, :])],
        {"is_case_sensitive": 0, "stopwords": ["the", "over"], "locale": "C.UTF-8"},
        opset=10,
    ),
    OpCase(
        "StringConcat [10000] + suffix",
        "StringConcat",
        [In((10000,), np.str_, values=WORDS), In((), np.str_, values="!")],
        opset=20,
    ),
    OpCase(
        "StringSplit [10000] on spaces",
        "StringSplit",
        [In((10000,), np.str_, values=WORDS)],
        {"delimiter": " "},
        opset=20,
        outputs=2,
    ),
    OpCase(
        "RegexFullMatch [10000]",
        "RegexFullMatch",
        [In((10000,), np.str_, values=WORDS)],
        {"pattern": r".*fox \d+ jumps.*"},
        opset=20,
    ),
]
