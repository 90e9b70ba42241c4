"""
Comparing classifiers over many data sets: the critical-difference diagram
==========================================================================

Demšar (2006) recommends comparing k methods over N data sets by their **ranks**: Friedman's test
asks whether the mean ranks differ at all, and if so Nemenyi's post-hoc test calls two methods
different when their mean ranks differ by more than the critical difference

.. math::

    \\mathrm{CD} = q_\\alpha \\sqrt{\\frac{k (k + 1)}{6 N}} .

The critical-difference diagram (:func:`toolkit.stats.cd_diagram`) draws the mean ranks on an
axis and joins, with thick bars, the groups of methods that do not differ significantly.

Here the data are the committed results of ``ssl-toolkit reproduce gieseke2012``
(``reports/gieseke2012/splits.csv``): the mean test error over 10 partitions of 32 tasks of
Gieseke et al. (2012), Tables 2-3, for the supervised RLSC and SVM and the semi-supervised
S²RLSC and TSVM, under the two model-selection scenarios of the paper.
"""

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from toolkit import stats

# %%
# The tidy per-split results (one row per task × method × scenario × split × metric); the
# example runs from the repository root or from ``examples/``.
reports = next(path for path in (Path("reports"), Path("..", "reports")) if (path / "gieseke2012").is_dir())
splits = pd.read_csv(reports / "gieseke2012" / "splits.csv")
methods = ["rlsc", "svc", "s2rlsc", "tsvm"]
errors = splits[(splits.metric == "test_error") & splits.method.isin(methods)]

# %%
# One table of data sets × methods per scenario: the mean test error over the partitions.
tables = {scenario: group.groupby(["task", "method"]).value.mean().unstack()[methods]
          for scenario, group in errors.groupby("scenario")}
realistic = tables["labeled-cv"]
print(realistic.round(1).head(8))

# %%
# Friedman's test on the realistic scenario (parameters chosen by cross-validation on the
# labelled points only), then Nemenyi's pairwise comparisons.
friedman = stats.friedman(realistic)
print(friedman.summary())
nemenyi = stats.nemenyi(realistic)
print("mean ranks:", nemenyi.ranks.round(2).to_dict(), f"CD = {nemenyi.cd:.2f}")
print(nemenyi.pvalues.round(4))

# %%
# The diagrams, side by side: the realistic selection, and the non-realistic one (parameters
# chosen on the test set, the papers' Table 2), which judges each model's potential and favours
# the methods with more parameters to tune.
fig, axes = plt.subplots(2, 1, figsize=(7, 4.5))
for ax, scenario in zip(axes, ["labeled-cv", "test-set (non-realistic)"]):
    stats.cd_diagram(tables[scenario], alpha=0.05, ax=ax)
    ax.set_title(f"{scenario}: mean ranks over {len(tables[scenario])} tasks (lower is better)")
plt.show()
