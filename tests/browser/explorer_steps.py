"""What a learner does with each explorer, and what the explorer must show afterwards.

One entry per (notebook key, explorer): the key is the notebook's stem, "en/<stem>" for the English edition (its
explorers speak English there: lnlib.set_language("en")); the explorer is the first `<Name>Explorer(` call found in
a code cell of that notebook ("<Name>Explorer#2" for the second one in the same notebook). Steps run in order, in
the real browser, on the explorer's own output area.

Add a row when you add an explorer. An explorer without a row is still moved by the generic fallback (every
slider ArrowRight, every toggle group / dropdown to another option, every checkbox clicked; "some output
changed"), but a text box cannot be moved generically: an explorer with a text box and no row for it fails.

Step fields
    control   "text" | "slider" | "toggle" | "dropdown" | "checkbox"
    which     index among the explorer's controls of that kind (0 = first), or a substring of its label ("ε")
    type      text: replaces the box's content by typing this, key by key at a person's pace (Ctrl+A first),
              then presses Enter (the explorers' text boxes apply a vector on Enter); latency is measured from
              the Enter
    key       slider / dropdown: a key pressed on the focused handle / select ("ArrowRight", "End", …)
    click     toggle: the label of the button to click
    choose    dropdown: the label of the option to choose
    expect    substrings that must appear in the explorer's text afterwards
    expect_re regular expressions (JavaScript syntax) that must match the explorer's text afterwards;
              table cells are separated by tabs in the text, so use \\s+ between cells
    absent    substrings that must not appear afterwards
    changed   outputs that must differ from before the step: "tables", "images", "html" (text of HTML outputs,
              including messages) or "any"
    unchanged outputs that must stay exactly as before (e.g. the last valid table after a typing error)

Latency is measured in the page from the learner's last input event (keydown / mousedown / input / change)
before the expected state appeared, to the DOM change (or image load) that completed it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    control: str
    which: int | str = 0
    type: str | None = None
    key: str | None = None
    click: str | None = None
    choose: str | None = None
    expect: tuple[str, ...] = ()
    expect_re: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    changed: tuple[str, ...] = ("any",)
    unchanged: tuple[str, ...] = ()

    def describe(self) -> str:
        action = self.type if self.type is not None else self.key or self.click or self.choose or "click"
        return f"{self.control}[{self.which}] {action!r}"


ERROR = "⚠"  # every explorer error message starts with it (lnlib.widgets.error_html)

INTERACTIONS: dict[tuple[str, str], list[Step]] = {
    ("02-which-axis", "AxisExplorer"): [
        Step(
            "toggle",
            click="按列",
            changed=("tables", "images"),
            expect=("按列：每一维一组",),
            expect_re=(r"第 1 维\s+10\.000\s+56\.000\s+7\.483",),
        ),
        Step("toggle", which="哪一个", click="第 3 维", changed=("images",), unchanged=("tables",)),
        Step(
            "toggle",
            click="全表",
            changed=("tables", "images"),
            expect=("全表：12 个数一组",),
            expect_re=(r"全表\s+20\.000\s+620\.000\s+24\.900",),
        ),
        Step("toggle", click="按行", changed=("tables", "images"), absent=("Traceback", "Error"), expect=("按行",)),
        Step("toggle", which="哪一个", click="吃", changed=("images",), unchanged=("tables",)),
    ],
    ("03-one-row-by-hand", "VectorExplorer"): [
        Step(
            "text",
            type="20, 40, 60, 80",
            changed=("tables", "images"),
            expect_re=(r"归一化 x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342", r"均值 μ\s+50\.000"),
        ),
        Step(
            "text",
            type="a, b",
            changed=("html",),
            unchanged=("tables", "images"),
            expect=(ERROR, "不是数字"),
            expect_re=(r"归一化 x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342",),
        ),
        Step("slider", which="ε", key="ArrowRight", changed=("tables",), expect=("ε = 3.16228e-05",)),
        Step(
            "text",
            type="2, 4, 6, 8",
            changed=("tables",),
            absent=(ERROR,),
            expect_re=(r"归一化 x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342", r"均值 μ\s+5\.000"),
        ),
    ],
    ("04-epsilon", "EpsilonExplorer"): [
        Step(
            "slider",
            which="ε",
            key="ArrowRight",
            changed=("tables", "images"),
            expect=("ε = 1.77828e-05", "ε = 2e-05 时 x̂ 的方差"),
            expect_re=(r"这一行\s+0\.000002\s+0\.000018\s+0\.101098",),
        ),
        Step("text", type="x, 3", changed=("html",), unchanged=("tables", "images"), expect=(ERROR, "不是数字")),
        Step(
            "text",
            type="20, 40, 60, 80",
            changed=("tables", "images"),
            absent=(ERROR,),
            expect_re=(r"归一化 x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342",),
        ),
        Step(
            "text", type="1, 2, 3", changed=("tables", "images"), expect_re=(r"归一化 x̂\s+-1\.225\s+0\.000\s+1\.225",)
        ),
    ],
    ("05-kept-and-lost", "ScaleShiftExplorer"): [
        Step(
            "slider",
            which="缩放",
            key="ArrowRight",
            changed=("tables", "images"),
            expect_re=(
                r"变换后 1\.12·x \+ 0\s+2\.244\s+4\.488\s+6\.732\s+8\.976\s+5\.610\s+2\.509",
                r"变换后的 x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342",
            ),
        ),
        Step(
            "slider",
            which="平移",
            key="ArrowRight",
            changed=("tables", "images"),
            expect_re=(
                r"变换后 1\.12·x \+ 1\s+3\.244\s+5\.488\s+7\.732\s+9\.976\s+6\.610\s+2\.509",
                r"变换后的 x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342",
            ),
        ),
        Step("text", type="(2, 4", changed=("html",), unchanged=("tables", "images"), expect=(ERROR, "括号")),
        Step(
            "text",
            type="1, 2, 3",
            changed=("tables", "images"),
            absent=(ERROR,),
            expect_re=(r"原来的 x\s+1\.000\s+2\.000\s+3\.000",),
        ),
        Step(
            "text",
            type="4, 1, 5, 9",
            changed=("tables", "images"),
            expect_re=(
                r"原来的 x\s+4\.000\s+1\.000\s+5\.000\s+9\.000",
                r"变换后的 x̂\s+-0\.262\s+-1\.311\s+0\.087\s+1\.485",
            ),
        ),
    ],
    ("06-gamma-and-beta", "GammaBetaExplorer"): [
        Step(
            "slider",
            which="γ 第 1 维",
            key="ArrowRight",
            changed=("tables", "images"),
            expect_re=(r"我\s+1\.476\s+0\.447\s+-0\.447\s+-1\.342", r"苹果\s+-1\.476\s+-0\.447"),
        ),
        Step(
            "slider",
            which="β 第 1 维",
            key="ArrowRight",
            changed=("tables", "images"),
            expect_re=(r"我\s+1\.576\s+0\.447", r"苹果\s+-1\.376\s+-0\.447", r"我\s+0\.059\s+1\.167"),
        ),
    ],
    ("08-layernorm-vs-batchnorm", "BatchExplorer"): [
        Step(
            "slider",
            key="ArrowRight",
            changed=("tables",),
            expect=("另一句 × 1.5", "LayerNorm：我们这句的输出（与另一句无关）"),
            expect_re=(r"我\s+-0\.456\s+-0\.691\s+-0\.750\s+-0\.775",),
        ),
    ],
    ("09-add-and-norm", "DepthExplorer"): [
        Step("slider", key="ArrowRight", changed=("tables", "images"), expect_re=(r"第 7 层\s+5\.905\s+3\.416",)),
    ],
    ("10-attention-softmax", "SoftmaxExplorer"): [
        Step(
            "slider",
            key="ArrowRight",
            changed=("tables", "images"),
            expect=("放大倍数 1.12：每个 query 的注意力",),
            expect_re=(r"我\s+0\.978\s+0\.121",),
        ),
    ],
    ("13-numerics-and-speed", "VarianceExplorer"): [
        Step(
            "slider",
            key="ArrowRight",
            changed=("tables",),
            expect=("x = 100000 + [0.0, 1.0, 2.0, 3.0]，用 float32 计算",),
            expect_re=(r"一遍法 E\[x²\] − E\[x\]²\s+0\.000\s+-474\.342",),
        ),
        Step(
            "toggle",
            click="float64",
            changed=("tables",),
            expect=("用 float64 计算",),
            expect_re=(r"一遍法 E\[x²\] − E\[x\]²\s+1\.250\s+-1\.342",),
        ),
    ],
    ("15-training-with-and-without-ln", "TrainingExplorer"): [
        Step("slider", key="ArrowLeft", changed=("images",), expect=("Post-LN，无 warm-up", "Pre-LN，无 warm-up")),
        Step("toggle", which=1, click="50 步", changed=("images", "html"), expect=("Post-LN，warm-up 50 步",)),
        Step(
            "toggle",
            which=0,
            click="深层 MLP",
            changed=("images", "html"),
            expect=("LayerNorm，无 warm-up", "BatchNorm，无 warm-up", "RMSNorm，无 warm-up"),
        ),
        # one click per normalization (checkboxes, issue 32): off, then on again
        Step("checkbox", which=2, changed=("images", "html"), absent=("BatchNorm，无 warm-up",)),
        Step("checkbox", which=2, changed=("images", "html"), expect=("BatchNorm，无 warm-up",)),
        # back to the Transformer, so the sweep after these steps also goes round its warm-up toggle (the MLP's
        # grid has a single warm-up: the toggle had one sample, a noisy median)
        Step("toggle", which=0, click="Transformer", changed=("images", "html"), expect=("Post-LN，无 warm-up",)),
    ],
    ("16-layernorm-in-a-trained-model", "LMExplorer"): [
        Step("toggle", click="最终", changed=("tables",), expect=("最终 LayerNorm（输出层前）：每个字的 μ、σ 和 x̂",)),
        Step("text", type="小猫今天吃", changed=("tables",), absent=(ERROR,), expect=("5 吃", "「鱼」")),
        Step(
            "text",
            type="我吃猪肉",
            changed=("html",),
            unchanged=("tables",),
            expect=(ERROR, "模型没见过", "「猪」、「肉」"),
        ),
        Step("toggle", click="1·注意力前", changed=("tables",), expect=("第 1 层·注意力前", "5 吃", ERROR)),
        Step("text", type="我吃苹果。", changed=("tables",), absent=(ERROR,), expect_re=(r"3 苹[^\n]*「果」\s*100%",)),
    ],
    # --- the English edition (issue 44): the same learner's moves, English words, the same hand-checked numbers ----
    ("en/02-which-axis", "AxisExplorer"): [
        Step(
            "toggle",
            click="column",
            changed=("tables", "images"),
            expect=("by column: one group per dimension",),
            expect_re=(r"dim 1\s+10\.000\s+56\.000\s+7\.483",),
        ),
        Step("toggle", which="Which", click="dim 3", changed=("images",), unchanged=("tables",)),
        Step(
            "toggle",
            click="whole table",
            changed=("tables", "images"),
            expect=("whole table: 12 numbers in one group",),
            expect_re=(r"whole table\s+20\.000\s+620\.000\s+24\.900",),
        ),
        Step("toggle", click="row", changed=("tables", "images"), absent=("Traceback", "Error"), expect=("by row",)),
        Step("toggle", which="Which", click="吃 (eat)", changed=("images",), unchanged=("tables",)),
    ],
    ("en/03-one-row-by-hand", "VectorExplorer"): [
        Step(
            "text",
            type="20, 40, 60, 80",
            changed=("tables", "images"),
            expect=("LayerNorm step by step",),
            expect_re=(r"normalized x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342", r"mean μ\s+50\.000"),
        ),
        Step(
            "text",
            type="a, b",
            changed=("html",),
            unchanged=("tables", "images"),
            expect=(ERROR, "is not a number"),
            absent=("不是数字",),
            expect_re=(r"normalized x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342",),
        ),
        Step("slider", which="ε", key="ArrowRight", changed=("tables",), expect=("(ε = 3.16228e-05)",)),
        Step(
            "text",
            type="2, 4, 6, 8",
            changed=("tables",),
            absent=(ERROR,),
            expect_re=(r"normalized x̂\s+-1\.342\s+-0\.447\s+0\.447\s+1\.342", r"mean μ\s+5\.000"),
        ),
    ],
    # the tokens keep their Chinese characters with an English gloss: "吃 (eat)"
    ("en/16-layernorm-in-a-trained-model", "LMExplorer"): [
        Step(
            "toggle",
            click="final",
            changed=("tables",),
            expect=("final LayerNorm (before the output layer): μ, σ and x̂ of each character",),
        ),
        Step("text", type="小猫今天吃", changed=("tables",), absent=(ERROR,), expect=("5 吃 (eat)", "“鱼”")),
        Step(
            "text",
            type="我吃猪肉",
            changed=("html",),
            unchanged=("tables",),
            expect=(ERROR, "The model has never seen", "“猪”, “肉”"),
            absent=("模型没见过",),
        ),
        Step(
            "toggle",
            click="1·pre-attn",
            changed=("tables",),
            expect=("layer 1 · before attention", "5 吃 (eat)", ERROR),
        ),
        Step("text", type="我吃苹果。", changed=("tables",), absent=(ERROR,), expect_re=(r"3 苹[^\n]*“果”\s*100%",)),
    ],
}
