"""The fingerprints of the answer key's mistaken answers, one entry per mistake the
catalogue recognises by fingerprint (``mistakes.Known``): written by
``python -m grading.fingerprints``, do not edit. A digest is one-way
(``attention_book.exercises.fingerprint``): none says what answer it was made from."""

DIGESTS: dict[tuple[str, str], frozenset[str]] = {
    ("ex-h1-medium", "no-biases"): frozenset({
        "7dac8959f76b5115",
    }),
    ("ex-h2-three", "two-positions"): frozenset({
        "42f40935ffed6bf5",
    }),
    ("ex-h3-share", "kept-share"): frozenset({
        "ae9aba5fb731d3ad",
    }),
    ("ex-i2-uniform-score", "the-limit"): frozenset({
        "5973c8c2a810f598",
        "b804bb7ee8c8ffbd",
    }),
    ("ex-i2-uniform-score", "rows-off-by-one"): frozenset({
        "1577bc71eb95870d",
        "f3d5a4903d30a22d",
    }),
    ("ex-k1-queries", "n-every-step"): frozenset({
        "9cf17fc53df15d4d",
    }),
    ("ex-k1-queries", "steps-from-zero"): frozenset({
        "f28935fbe20a1806",
    }),
    ("ex-k3-llama7b", "half"): frozenset({
        "8f6dbf9636ba6689",
    }),
    ("ex-k3-llama7b", "four-bytes"): frozenset({
        "d1680f9d82f1b929",
    }),
    ("ex-k6-capacity", "weights-left-in"): frozenset({
        "7dbbb6b848a58a51",
    }),
    ("ex-k6-capacity", "rounded-up"): frozenset({
        "b08934d7a496675b",
    }),
    ("ex-l3-columns", "head-counted-from-one"): frozenset({
        "ce54c228afbcd888",
    }),
    ("ex-m1-norm-share", "the-weight"): frozenset({
        "f48070db4a1dd9bc",
    }),
    ("ex-m1-norm-share", "norms-only"): frozenset({
        "68637224c27e33ad",
        "afc2b8f4d1294824",
    }),
    ("ex-n2-gauge", "what-remains"): frozenset({
        "aed7c0c932790304",
    }),
    ("ex-n2-gauge", "G-counted-twice"): frozenset({
        "8ab42b726375900b",
    }),
    ("ex-n3-dk", "change-of-M"): frozenset({
        "5e3c8d55eba5b88f",
        "b43edae4fa0f8805",
    }),
    ("ex-o4-mqa", "ratios-upside-down"): frozenset({
        "1b48162a3b6257bf",
        "378a03c898e914c9",
        "63650ad220d3649b",
        "c30b6f2de6a3dca2",
    }),
    ("ex-q1-control", "baseline"): frozenset({
        "976b2c361818576f",
    }),
    ("ex-q1-control", "gpt2-head"): frozenset({
        "22e8364e70df4830",
    }),
    ("ex-q1-control", "without-the-4"): frozenset({
        "8c04d40aa76beca9",
    }),
    ("ex-q4-prev", "on-itself"): frozenset({
        "a0327855df39a69c",
    }),
    ("ex-q4-prev", "transposed"): frozenset({
        "22cdcbdde2e46b09",
    }),
    ("ex-q4-rank-one", "without-the-half"): frozenset({
        "2b730d5319b85f59",
        "e7c85d9441f1791e",
    }),
    ("ex-q5-flat", "rows-off-by-one"): frozenset({
        "4ca411658ce867cb",
        "fd67429634567e79",
    }),
    ("ex-q5-flat", "squared-norms"): frozenset({
        "88c7420094f673de",
    }),
    ("ex-s1-rademacher", "variance-squared"): frozenset({
        "918a758dd8c289bd",
    }),
    ("ex-s4-monotone", "sign-flipped"): frozenset({
        "69ed234e241c46e0",
    }),
    ("ex-s4-monotone", "no-beta"): frozenset({
        "3262a0efd1652b92",
    }),
    ("ex-s4-temperature", "variance-for-std"): frozenset({
        "8151bd31a22beacf",
    }),
    ("ex-s4-temperature", "scaled-logits"): frozenset({
        "25b31021c018495d",
        "7464cddccd39d2ee",
    }),
    ("ex-v1-decoder", "swapped"): frozenset({
        "1808d390638d1aac",
        "4afdf9187f75884a",
    }),
    ("ex-v1-fold-ln", "not-folded"): frozenset({
        "90cdf6b6c07318df",
    }),
    ("ex-v1-fold-ln", "transposed"): frozenset({
        "a73c6e01db12d1c5",
    }),
    ("ex-v3-decodable", "raw-norm"): frozenset({
        "73da87208d767f9f",
    }),
    ("ex-v3-decodable", "explained"): frozenset({
        "0645c57e4ca80a94",
        "2b2811002bb8d458",
        "4ae5277045c542b7",
        "58d924ee75b64094",
    }),
    ("ex-xi-mqa", "half-cache"): frozenset({
        "8db673b4ac8c3814",
    }),
    ("ex-xi-mqa", "one-layer"): frozenset({
        "361510fcfbdd2b7c",
    }),
}
