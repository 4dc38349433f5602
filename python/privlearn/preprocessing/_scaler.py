r"""A differentially private ``StandardScaler``: per-feature mean and standard deviation from
noisy normalised sums of the data clipped to declared or privately released bounds.

The release
-----------
Every feature ``j`` has bounds ``l_j < u_j``: declared (parameters, never statistics of the
data), or released privately first (section "Private bounds" below; the released numbers are
then used exactly as declared ones, so everything in this section and the next holds for them,
conditionally on their release). Let ``m_j = l_j/2 + u_j/2`` be the midpoint and ``r_j`` the
half-range, computed as ``max(fl(u_j - m_j), fl(m_j - l_j))`` (so ``r_j > 0`` whenever ``l_j <
u_j``). Each value is clipped to ``[l_j, u_j]``, centred, ``c_ij = fl(clip(x_ij) - m_j)``, and
divided by its feature's half-range, ``z_ij = fl(c_ij / r_j)``. Rounding is monotone, so
``|c_ij| <= r_j``, hence ``|z_ij| <= 1``, and ``z_ij^2 := fl(z_ij z_ij)`` lies in ``[0, 1]``,
all exactly, for the computed values. Two vectors of **normalised sums** are released:

* ``T1_j = sum_i z_ij`` (the first moment about the midpoint, in units of ``r_j``), and
* ``T2_j = sum_i z_ij^2`` (the second moment about the midpoint, in units of ``r_j^2``).

From the noisy ``T1~`` and ``T2~`` (post-processing, ``n`` public)::

    mean_   = m + r * clip(T1~ / n, -1, 1)
    var_    = r^2 * clip(T2~ / n - (T1~ / n)^2, floor, 1)  # values in [l, u]: variance <= r^2
    scale_  = r * sqrt(clip(...))
    floor   = min((sd_2 + 2 |clip(T1~ / n, -1, 1)| sd_1) / n, 1)  # the noise level (below)

(``var_`` is evaluated as ``(r v) r``, ``scale_`` as ``r sqrt(v)``: ``sqrt(var_)`` up to
rounding, and finite even where ``r^2`` overflows.) ``transform`` and ``inverse_transform`` are
scikit-learn's: ``(x - mean_) / scale_`` (the subtraction only with ``with_mean``, the division
only with ``with_std``), without clipping.

Sensitivities (replace-one, ``n`` public)
-----------------------------------------
Replacing one row ``x`` by ``x'`` replaces one summand of every sum. Per feature, whatever the
bounds: ``|z_j - z'_j| <= 2`` and ``|z_j^2 - z'^2_j| <= 1`` (both squares lie in ``[0, 1]``).
These are attained: a row at ``l_j`` against one at ``u_j`` moves ``T1_j`` by 2; a row at
``m_j`` against one at a bound moves ``T2_j`` by 1. Over the ``d`` features, since one row
moves every feature at once, the L1 sensitivities are ``2 d`` (``T1``) and ``d`` (``T2``)
(Laplace), the L2 sensitivities ``2 sqrt(d)`` and ``sqrt(d)`` (Gaussian): functions of ``d``
alone, not of the bounds. In the data's units the noise of feature ``j``'s sums is that noise
times ``r_j`` (``T1``) or ``r_j^2`` (``T2``): each feature is calibrated to its own range.

*Floating point.* The terms need no slack: the bounds above hold for the computed ``z_ij`` and
``z_ij^2``, and the rows two neighbours share give identical terms (the same ``m_j``, ``r_j``).
The sums are computed by blocks of ``B = min(``:data:`BLOCK` ``, n)`` rows (4096, as the
private ``PCA``): each block's column sums by NumPy, in whatever order it adds them, then the
``ceil(n / B)`` block sums of each feature exactly rounded by ``math.fsum`` (Shewchuk's
algorithm). With ``u = 2^-53`` and ``gamma_k = k u / (1 - k u)``, a computed sum of ``k``
terms, in any order, is within ``gamma_k`` times the sum of the terms' magnitudes of the exact
sum (Higham, *Accuracy and stability of numerical algorithms*, 2nd ed., Lemma 3.1 and eq.
(3.5), the statement the ``PCA`` module uses; no term is a product, and an addition whose
result is subnormal is exact). Every term has magnitude at most 1, so the block sums of a
feature are within ``gamma_B n`` in total of the exact sum ``T`` (``|T| <= n``), and the
exactly rounded sum of the block sums adds at most ``u (1 + gamma_B) n``: a computed sum is
within ``e(n) = n (gamma_B (1 + u) + u) <= 1.01 (B + 1) u n`` of ``T`` (``B u <= 2^-41``). Two
neighbours' computed sums therefore differ by at most the exact sensitivity plus ``2 e(n)``:
the per-feature sensitivities used are ``2 + 2.02 (B + 1) u n`` (``T1``) and ``1 + 2.02 (B + 1)
u n`` (``T2``), their L1 / L2 totals ``d`` (or ``sqrt(d)``) times these, multiplied by ``1 +
2^-30`` (:data:`SUM_MARGIN`), which covers the rounding of their own evaluation (the factor
1.01 covers the few rounding errors of ``2.02 (B + 1) u n`` itself; the addition, the square
root, and two products round, a relative ``4 u`` at most). For ``n = 10^6`` rows the slack is
``9.2e-4`` per feature, a relative ``4.6e-4`` of the sensitivity ``2`` (of ``1`` for ``T2``,
``9.2e-4``); for ``n = 10^5``, ten times less. All of this depends on ``n`` and ``d`` only.
(Before, each column was summed by ``math.fsum`` alone, with the slack ``2^-52 n``, but
``fsum`` iterates over Python floats: a fit on ``10^6 x 20`` rows took 4.1 s; it takes 0.11 to
0.12 s now, scikit-learn's non-private ``StandardScaler`` 0.13 to 0.19 s: ``python
benches/compare.py preprocessing``.)

Why normalised sums
-------------------
Release, for public weights ``w_j > 0``, the weighted centred sums ``w_j S1_j`` (``S1_j = sum_i
c_ij``) with one noise scale, calibrated to their sensitivity ``2 sum_k a_k`` (L1) or ``2
sqrt(sum_k a_k^2)`` (L2), ``a_k = r_k w_k``; the noise on ``S1_j`` is that noise divided by
``w_j``. Measure each feature in its own units, relative to ``r_j``: the sum of the relative
variances, ``sum_j Var(S1_j) / r_j^2``, is proportional to ``(sum_k a_k)^2 sum_j 1/a_j^2``
(L1) or ``(sum_k a_k^2) sum_j 1/a_j^2`` (L2). Both are invariant under scaling the ``a_j``, and
by Cauchy-Schwarz at least ``d^3`` (``(sum_k a_k)(sum_j 1/a_j) >= d^2`` and ``sum_j 1/a_j^2 >=
(sum_j 1/a_j)^2 / d``) and ``d^2`` (``(sum_k a_k^2)(sum_j 1/a_j^2) >= d^2``), with equality
exactly when all ``a_j`` are equal: ``w_j = 1 / r_j``, the normalised sums ``T1``. The same
argument with ``q_j = r_j^2`` in place of ``r_j`` gives ``T2``. The unweighted release (``w_j =
1``: one noise scale calibrated to ``sum_j 2 r_j`` or ``sqrt(sum_j (2 r_j)^2)``, privlearn's
release before this one) gives every feature the noise of the largest ranges: on scikit-learn's
breast cancer data with the bounds of ``benches/scaler_private_bounds.py`` (30 features, ranges
0.06 to 8000) its sum of relative variances of ``S1`` is ``8e6`` (L1) and ``9e7`` (L2) times
that of ``T1``, and the median error of its ``scale_`` was 8 standard deviations (table below).
The price is paid by the features whose range is above the average: the relative noise of
feature ``j`` changes by the factor ``d r_j / sum_k r_k`` (L1), more than 1 for them (on breast
cancer four of the 30 features, up to 15 times). diffprivlib's ``StandardScaler`` also
calibrates each feature to its own range (Laplace on each feature's mean and variance with
``epsilon / (2 d)`` each): the L1 case of this release.

Centring only (``with_std=False``)
----------------------------------
The argument above minimises the summed **relative** variance, the right criterion when the
output is divided by ``scale_``. Centring only, ``transform`` outputs ``x - mean_`` in the
data's units, so the **absolute** noise matters: feature ``j``'s noise standard deviation is
proportional to ``Delta(a) r_j / a_j``, ``Delta(a) = ||a||_1`` (L1) or ``||a||_2`` (L2). Its
largest value over the features is at least ``||r||_p``, with equality exactly when all
``r_j / a_j`` are equal (``r_j <= c a_j`` with ``c = max_k r_k / a_k`` gives ``||r||_p <= c
||a||_p``): ``w_j = 1``, ``a_j = r_j``, every feature with the same absolute noise ``||r||_p``
times the noise of one unit sensitivity, the opposite weighting of the normalised sums. (This
minimises the largest absolute error; the *summed* absolute variance, ``||a||_p^2 sum_j r_j^2
/ a_j^2``, is minimised by ``a_j`` proportional to ``r_j^(2/3)`` in L1 and ``r_j^(1/2)`` in
L2, checked numerically, between the two weightings; privlearn keeps the minimax rule, which
is also its release before the normalised one.) **Rule: centring only, equal absolute noise;
standardising, noise proportional to each range.** Measured: on breast cancer (30 raw
features, ranges 0.1 to 4000) a centring-only scaler before a private logistic regression
lost accuracy from 0.88 to 0.71 at ``epsilon = 1`` when the per-feature release replaced the
one-scale one.

So with ``with_std=False`` the released vector is ``V_j = fl(rho_j T1_j)`` with the weights
``rho_j = r_j / ||r||_p`` (``p = 1`` Laplace, ``p = 2`` Gaussian; ``r`` the half-ranges of the
bounds actually used, declared or privately released: public), and ``T1~_j = V~_j / rho_j``
is post-processing (then ``mean_`` as above). *Sensitivity.* The computed ``T1_j`` of two
neighbours differ by at most ``2 + s(n)`` (``s(n) = 2.02 (B + 1) u n``, *Floating point*),
and each is at most ``n (1 + 2^-40)`` in magnitude, so the rounding of the product adds at
most ``u rho_j n`` on each side (the excess ``2^-40`` is covered by the margin below; a
product that underflows adds at most ``2^-1075``, ``d`` of them negligible against the
margin): ``|V_j - V'_j| <= rho_j (2 + s(n) + 2 u n)``, and the L_p sensitivity is at most
``(2 + s(n) + 2 u n) ||rho||_p``. The weights are computed as ``rho_j = fl(fl(r_j 2^-e) /
N)``, ``2^-e`` the power of 2 bringing ``max_j r_j`` into ``[1/2, 1)`` (exact unless a term
becomes subnormal), ``N`` the computed norm: a sum of ``d`` positive terms (L1, relative error
at most ``gamma_(d-1)``), or the square root of a sum of ``d`` rounded squares (L2: ``N^2`` is
within ``gamma_d`` of the exact sum of squares, the square root halves that and adds ``u``).
So ``N >= ||r 2^-e||_p (1 - (d + 1) u)`` and, with the division's ``u``, the computed
``||rho||_p <= (1 + u) / (1 - (d + 1) u) <= 1 + (d + 2) u (1 + 2^-30)``. The sensitivity
used is ``(2 + s(n) + 2 u n) (1 + 2^-30)`` (:data:`SUM_MARGIN`): for ``d < 2^20`` the excess
``(d + 2) u < 2^-33``, plus the few roundings of the sensitivity's own evaluation, stays below
``2^-30``. It depends on ``n`` only: the noise law and the native event are fixed before the
data are read, declared or private bounds alike. The noise on ``mean_j`` in the data's units
is then ``||r||_p b / n`` for every feature (``b`` the noise scale of ``V``): the same for all
features, as privlearn's one-scale release before the normalised one. ``with_std=True`` keeps
the per-feature normalised release.

Calibration and guarantee
-------------------------
``delta = 0`` (**Laplace**): each sum vector is released by privlearn's Laplace mechanism
(:func:`privlearn.mechanisms.laplace`, exact sampler; Dwork and Roth, *The algorithmic
foundations of differential privacy*, Theorem 3.6) with its L1 sensitivity, ``T1`` with
``epsilon / 2`` and ``T2`` with ``epsilon / 2`` (exact halves): Laplace noise of scale ``2 d /
(epsilon / 2)`` on every ``T1_j`` and ``d / (epsilon / 2)`` on every ``T2_j`` (up to the slack
above); by basic composition (Dwork and Roth, Theorem 3.14) the fit is ``epsilon``-DP (pure).
``delta > 0`` (**Gaussian**): each sum vector is released by privlearn's Gaussian mechanism
(:func:`privlearn.mechanisms.gaussian`, exact discrete Gaussian, analytic calibration as that
function documents it) with its L2 sensitivity and ``(epsilon / 2, delta / 2)``; by basic
composition the fit is ``(epsilon, delta)``-DP. With ``with_std=False`` only the weighted
first sums ``V`` are released ("Centring only"), with the whole ``(epsilon, delta)`` and the
sensitivity ``2`` (up to the slack) in L1 or L2. The split (half and half) is fixed and public.

The neighbouring notion is **replace-one** (one row replaced, ``n`` public), privlearn's
default. The guarantee holds only with ``rng=None`` or an unseeded generator. One fit charges
the accountant once, label ``"StandardScaler"``, with the native events of the releases
composed into one :class:`~privlearn.accounting.PrivacyEvent` whose budget is ``(epsilon,
delta)``. Whether a fit succeeds, what it charges and the shapes of its attributes depend on the
parameters, ``n`` and ``d`` only; so do the sums' noise laws and native events, which are
fixed before the data are read.

Private bounds
--------------
``bounds="private"``, or ``"private"`` for some sides: ``bounds=(0.0, "private")`` declares
every lower side and releases every upper side, and per-feature sequences mix numbers and
``"private"`` (``(["private", 0.0], ["private", 1.0])``). Let ``k`` be the number of features
with at least one private side. Each of them gets **one** private quantile, at level ``q =
bounds_quantile`` (default :data:`BOUNDS_QUANTILE` = 0.98), of a per-record value:

* both sides private: ``v_ij = |x_ij|``; released ``G_j``, the bounds are ``[-G_j, G_j]``
  (symmetric about 0);
* lower ``l_j`` declared, upper private: ``v_ij = max(x_ij - l_j, 0)``, ``u_j = l_j + G_j``;
* upper ``u_j`` declared, lower private: ``v_ij = max(u_j - x_ij, 0)``, ``l_j = u_j - G_j``.

``G_j`` is :func:`privlearn._private_quantile.private_quantile_bound` ``(v_j, quantile=q,
epsilon=epsilon_b)``: the exponential mechanism (McSherry and Talwar, "Mechanism design via
differential privacy", FOCS 2007, Theorem 6) with the guarded quantile utility of that module,
whose candidates are the public grid ``2^(k/8)`` in ``[1e-4, 1e8]``. ``v_ij`` is a fixed
function of row ``i`` alone (``l_j``, ``u_j`` are parameters), so replacing one row replaces
one value and the utility's replace-one sensitivity stays 1 (that module's proof): each
release is ``epsilon_b``-DP, more precisely ``epsilon_b``-bounded-range (Durfee and Rogers,
NeurIPS 2019). Values beyond ``1e8`` from the reference point all count alike (an overflow of
``x - l_j`` is clamped to the largest float, which changes no count).

*Always a positive range.* ``G_j >= 1e-4 > 0``, so ``[-G_j, G_j]`` has width ``>= 2e-4``; a
one-sided release is ``max(fl(l_j + G_j), nextafter(l_j, +inf))`` (``min(fl(u_j - G_j),
nextafter(u_j, -inf))``), strictly beyond the declared side even when ``G_j`` is below its
ulp. A declared side next to a private one must be at most :data:`DECLARED_MAX` = ``1e100`` in
magnitude, so that the released side and the range stay finite.
Whether the release is defined and what it charges never depends on the data.

*Budget.* A public fraction ``f`` of ``epsilon`` goes to the ``k`` quantiles together:
``bounds_fraction`` if given, else the plan ``f = min(0.5, max(0.1, 32 k / (n epsilon)))``
(:func:`bounds_share_plan`; ``n epsilon_b`` about 32 when the fraction allows). The shares
are :func:`privlearn._private_quantile.split_epsilon`'s: ``epsilon_b`` is the largest float
at most ``f epsilon / k`` and ``rest`` the largest float at most ``epsilon - k epsilon_b``
(exact rationals, so ``k epsilon_b + rest <= epsilon`` exactly). The sums are then released as
in "Calibration and guarantee" with ``rest`` in place of ``epsilon`` (``rest / 2`` each, and
``delta / 2`` each with Gaussian noise) and the same sensitivities, which do not depend on the
bounds. Clipping to a released value and dividing by its half-range are post-processing of it.

*Guarantee.* The ``k`` quantile releases and then the sums (chosen adaptively: their clipping
and normalisation depend on the released bounds, their noise law does not) compose by adaptive
basic composition (Dwork and Roth, Theorem 3.16; each later mechanism is ``(epsilon_i,
delta_i)``-DP for every value of the earlier outputs): the fit is ``(k epsilon_b + rest, delta)
<= (epsilon, delta)``-DP, replace-one, ``n`` public. It is charged once, label
``"StandardScaler"``, as one composed event: ``k`` ``bounded_range(epsilon_b)`` events, then the
sums' events, with budget ``(epsilon, delta)``.

*Gaussian noise with private bounds.* The native event of the exact Gaussian sampler depends
on the sensitivity it is given (its grid), and the charge must be fixed before anything is
drawn. The normalised sums' sensitivities depend on ``n`` and ``d`` only, so their events are
those of declared bounds with ``rest`` in place of ``epsilon``, known before the data are read:
declared and private bounds take the same code path (the unweighted sums of privlearn's
previous release, whose sensitivities were functions of the released bounds, needed a separate
normalised Gaussian release with a larger rounding slack for this).

*Why symmetric bounds for a feature with both sides private.* The two-sided alternative, ``u_j``
the quantile of ``max(x, 0)`` and ``l_j`` of ``max(-x, 0)`` (two releases per feature), fails
whenever one side holds few values: a feature that is mostly positive leaves the lower side's
values almost all at 0, below the grid, where the utility is flat, and the released bound is
then nearly uniform over the grid (up to ``1e8``). Measured with a prototype of both designs
on the synthetic data of ``benches/scaler_private_bounds.py`` (30 fits per setting, quantile
0.9 to 0.99, fraction 0.2 or 0.5): median error of ``mean_`` 0.4 to 1.6 standard deviations
for the two-sided design (9 to 440 at ``epsilon = 0.5`` with the fraction 0.2), against 0.03 to
0.15 for the symmetric one, at ``epsilon``
0.5 to 2. The symmetric bound costs at most a factor 2 in range on a one-signed feature;
declaring its known side removes that cost.

*When private bounds are refused.* ``fit`` raises :class:`~privlearn.errors.InvalidParameterError`
(``bounds``) before anything is drawn when ``n epsilon_b <`` :data:`BOUNDS_MIN` ``= 16``: a
grid point far from the data then has a probability within ``e^-8`` of the quantile's, and
with 319 grid points a bound far off becomes likely (the far-tail bound of
:mod:`privlearn._private_quantile` is ``K e^(-epsilon_b (n - r) / 2)``). ``n``, ``epsilon``,
the fraction and ``k`` (a function of ``bounds`` and ``d``) are public, so the refusal reveals
nothing.

*Known weaknesses.* (1) **Features with a point mass** (0/1 indicators, one-hot columns, counts,
a side with few values): their quantile is ill-posed (a rare indicator's ``|x|`` is 0 for most
rows, its quantile below the grid, and the bound lands anywhere on the grid, up to ``1e8``), and
that feature's statistics are then useless (its noise is in units of its own range; the other
features do not suffer from it, each being calibrated to its own range). Declare their bounds
(``(0, 1)``). On warfarin with every side private the median error of ``mean_`` is 0.09 to 0.5
standard deviations, but the transform of the indicators is far off (a mean RMS error of the
transformed columns of thousands of standard deviations); with the indicators declared the
errors are close to those of declared bounds (table below). (2) The bounds are symmetric about 0
(or measured from the declared side): a feature far from 0 compared with its spread (a location
of 1000, a spread of 10) gets a range of about twice its location; shift it by a declared offset
first (a ``FunctionTransformer(lambda X: X - offset)`` step, stateless, allowed in
:func:`privlearn.pipeline.make_private_pipeline`). (3) The grid spans ``1e-4`` to ``1e8``:
rescale features outside that range. (4) The guard of the quantile mechanism moves extreme
quantiles towards the bulk of the data (a 0.98 quantile may come out lower): more clipping, not
a privacy issue. (5) With ``d`` large and ``n`` small (scikit-learn's breast cancer data, ``d =
30``, ``n = 569``) the noise of every feature, ``2 d / (n epsilon / 2)`` half-ranges on its
mean, is large at ``epsilon <= 2``; private bounds are refused there below ``epsilon = 2`` by
the rule above. (6) **A variance clipped to 0.** ``T2~ / n - (T1~ / n)^2`` is the variance about
the released mean, so the error of ``T1~ / n`` enters it amplified by ``2 |T1 / n|``, large for
a feature whose mean is far from the midpoint of its bounds. A noisy variance at or below 0
would give ``scale_ = 1`` (scikit-learn's convention for a constant feature) in the data's
units, far off for a feature whose spread is far from 1 (2 fits in 1000 on the guide's example
before this was handled). **A variance at the noise level:** the released variance (in units
of ``r^2``) is therefore raised to ``(sd_2 + 2 |T1~ / n| sd_1) / n``, the standard deviation of
its own noise to first order (``sd_i`` the noise standard deviations of the two sums, public),
capped at 1. This is post-processing of public values and released ones; a constant feature
gets a small positive ``scale_`` instead of 1.

*Measured defaults.* ``benches/scaler_private_bounds.py --grid`` (30 seeded fits per
setting; data described in that script): the quantile in ``{0.9, 0.95, 0.98, 0.99}`` and the
fraction in ``{plan, 0.1, 0.2, 0.3, 0.5}``, measured with the unweighted release and again
with the normalised one. On warfarin with the indicators declared (three private features) and
on the synthetic continuous features (all private), the plan was the best or within noise of
the best fraction at every ``epsilon`` in ``{0.5, 1, 2}`` (a fixed 0.1 is refused on the
synthetic data at ``epsilon = 0.5``, a fixed 0.5 is worse by 15% to a factor 2); the quantiles
differed by about the run-to-run noise, 0.98 being the best or second best in 9 of the 12
(setting, statistic) pairs with the unweighted release. Median relative errors (``|mean_ -
mean| / sd`` and ``|scale_ - sd| / sd``, scikit-learn's ``mean``, ``sd``) with the defaults
(``python benches/scaler_private_bounds.py --reps 30``):

=================================  ==============  ==============  ==============
median error (mean_ / scale_)      epsilon = 0.5   epsilon = 1     epsilon = 2
=================================  ==============  ==============  ==============
warfarin, declared                 0.047 / 0.083   0.025 / 0.044   0.012 / 0.023
warfarin, indicators declared      0.041 / 0.073   0.025 / 0.049   0.015 / 0.030
warfarin, all private              0.23 / 1.0      0.46 / 0.90     0.094 / 0.51
cancer, declared                   1.7 / 4.2       1.1 / 3.2       0.61 / 2.2
cancer, lower side 0 declared      refused         refused         0.65 / 1.0
cancer, all private                refused         refused         1.3 / 2.3
synthetic, declared                0.12 / 0.20     0.061 / 0.11    0.030 / 0.057
synthetic, all private             0.090 / 0.19    0.047 / 0.13    0.026 / 0.13
=================================  ==============  ==============  ==============

("declared" bounds are taken around the data, so optimistic: see the script.) The unweighted
release had, in the same order, 0.069 / 0.21 to 0.019 / 0.055 on warfarin declared, 148 / 3.8
to 14 / 3.8 on warfarin all private, 5.0 / 7.9 to 3.8 / 7.7 on cancer declared and 0.13 / 0.21
to 0.033 / 0.063 on the synthetic data declared: every median is now lower, except the scale
with all sides private on the synthetic data at ``epsilon = 0.5`` (0.18 then, 0.19 now). On
the continuous features private bounds match declared ones for the mean and are up to 2 times
worse for the scale at ``epsilon >= 1`` (a symmetric range about 0 is up to twice the data's);
with warfarin's indicators declared they are close to the declared integer box.

*Not tight.* Because ``T2`` is centred at the midpoint, no single neighbouring pair moves both
sums by their full sensitivities (the pair ``l_j`` / ``u_j`` leaves ``T2_j`` unchanged). In
normalised units every feature contributes the same function of its pair ``(z_j, z'_j)``. With
Laplace noise the privacy loss of a pair is at most ``(epsilon / d) sum_j (|z_j - z'_j| / 4 +
|z_j^2 - z'^2_j| / 2)``, and each term's maximum over ``[-1, 1]^2`` is ``25/32`` at ``z = 1``,
``z' = -1/4``: the largest loss is ``25/32 epsilon ~ 0.78 epsilon``, for a row at ``u_j``
against one at ``m_j - r_j / 4`` in every feature, whatever the ranges. With Gaussian noise the
pair of largest loss is a row at ``u_j`` against one at ``m_j + z* r_j``, ``z* = (sqrt(2) - 2)
/ 4 ~ -0.146``, in every feature: it moves ``T1`` and ``T2`` by 0.573 and 0.979 of their L2
sensitivities, a Gaussian shift ``sqrt(1.286)`` times that of one full release where the
composition bound allows two, and loses about ``0.55 epsilon`` at the same ``delta`` (the
analytic Gaussian curve, ``epsilon`` in ``{0.5, 1, 2}``). Both maxima were computed in closed
form and checked numerically on a grid. The claim is the composition bound, which is valid.

Comparison: diffprivlib's ``StandardScaler`` releases each feature's mean and variance with its
own mechanisms from declared bounds (it warns and reads the range from the data when the bounds
are missing); this one releases two vectors of normalised sums with privlearn's exact samplers
(the same per-feature calibration, and Gaussian noise with ``delta > 0``), refuses missing
bounds, offers private bounds paid from the same budget, and charges a ledger shared by
scikit-learn clones.

Which library does what: the sums are NumPy's, by blocks, and Python's ``math.fsum`` (exactly
rounded) over the block sums; the noise is
privlearn's exact samplers (Rust core, through :mod:`privlearn.mechanisms`); the private bounds
and the epsilon split are :mod:`privlearn._private_quantile`'s (exponential mechanism on the
Rust core; exact rationals); the input checks, ``feature_names_in_`` and the transformer
plumbing are scikit-learn's.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin

from .._validate import check_boolean, check_delta, check_epsilon, check_integer, check_real
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ._base import PrivateTransformerMixin

__all__ = ["StandardScaler"]

LABEL = "StandardScaler"
#: Relative margin on the L1 / L2 totals of the per-feature sensitivities (module docstring).
SUM_MARGIN = 2.0**-30
#: Rows per block of the column sums (module docstring, *Floating point*; the same as ``PCA``'s).
BLOCK = 4096
_U = 2.0**-53

#: The string that asks for a privately chosen bound.
PRIVATE = "private"
#: Default quantile of the private bounds (measured; module docstring, "Private bounds").
BOUNDS_QUANTILE = 0.98
#: The plan of the share of ``epsilon`` spent on the private bounds when ``bounds_fraction`` is
#: ``None``: the fraction ``k BOUNDS_TARGET / (n epsilon)`` for ``k`` private quantiles, kept
#: within ``[BOUNDS_FRACTION_MIN, BOUNDS_FRACTION_MAX]`` (measured; module docstring).
BOUNDS_FRACTION_MIN = 0.1
BOUNDS_FRACTION_MAX = 0.5
BOUNDS_TARGET = 32.0
#: A fit with private bounds is refused when ``n`` times one quantile's share of ``epsilon`` is
#: below this (module docstring, "When private bounds are refused").
BOUNDS_MIN = 16.0
#: A declared side next to a private one must be at most this in magnitude, so that the released
#: side (at most ``1e8`` away) and its range stay finite.
DECLARED_MAX = 1e100


def _side_arg(value: object, side: str) -> Tuple[np.ndarray, np.ndarray]:
    """One side of ``bounds`` as ``(values, private)``: float values (NaN where private) and a
    boolean mask of the same shape (0-d for one entry for every feature, 1-d per feature).
    Accepts a number, ``"private"``, or a 1-d sequence of numbers and ``"private"``."""
    if isinstance(value, str):
        if value != PRIVATE:
            raise InvalidParameterError(
                f"bounds: {side} must be a number, 'private' or a 1-d sequence of them; got "
                f"{value!r}",
                "bounds",
            )
        return np.array(np.nan), np.array(True)
    try:
        out = np.asarray(value, dtype=np.float64)
        return out, np.zeros(out.shape, dtype=bool)
    except (TypeError, ValueError):
        pass
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        items = None
    if items is None or not items or not all(isinstance(v, str) or np.ndim(v) == 0 for v in items):
        raise InvalidParameterError(
            f"bounds: lower and upper must be numbers, 'private' or 1-d sequences of them; got "
            f"{value!r}",
            "bounds",
        )
    vals = np.empty(len(items))
    mask = np.zeros(len(items), dtype=bool)
    for j, v in enumerate(items):
        if isinstance(v, str):
            if v != PRIVATE:
                raise InvalidParameterError(
                    f"bounds: a per-feature {side} entry must be a number or 'private'; got {v!r}",
                    "bounds",
                )
            vals[j], mask[j] = np.nan, True
        else:
            try:
                vals[j] = float(v)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise InvalidParameterError(
                    f"bounds: a per-feature {side} entry must be a number or 'private'; got {v!r}",
                    "bounds",
                ) from None
    return vals, mask


def _bounds_arg(value: object) -> Tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` as float arrays (0-d for scalars, 1-d per feature), checked before any
    data are read: required, finite, and every range ``upper - lower`` finite and > 0."""
    if value is None:
        raise InvalidParameterError(
            "bounds: a declared (lower, upper) is required and has no default: every value is "
            "clipped to it, so it changes the result, and it must not be read from the data. "
            "Choose it from domain knowledge (the range the feature can take, not the range "
            "observed); got None",
            "bounds",
        )
    lo_hi: Tuple[Any, ...]
    try:
        lo_hi = tuple(value)  # type: ignore[arg-type]
    except TypeError:
        lo_hi = ()
    if len(lo_hi) != 2:
        raise InvalidParameterError(
            f"bounds: must be a pair (lower, upper) of numbers or per-feature arrays; got "
            f"{value!r}",
            "bounds",
        )
    try:
        lo = np.asarray(lo_hi[0], dtype=np.float64)
        hi = np.asarray(lo_hi[1], dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"bounds: lower and upper must be numbers or 1-d arrays of numbers; got {value!r}",
            "bounds",
        ) from None
    if lo.ndim > 1 or hi.ndim > 1 or (lo.ndim == hi.ndim == 1 and lo.shape != hi.shape):
        raise InvalidParameterError(
            "bounds: lower and upper must be scalars or 1-d arrays of the same length; got "
            f"shapes {lo.shape} and {hi.shape}",
            "bounds",
        )
    if lo.size == 0 or hi.size == 0:
        raise InvalidParameterError("bounds: lower and upper must not be empty", "bounds")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise InvalidParameterError("bounds: lower and upper must be finite", "bounds")
    with np.errstate(over="ignore"):
        width = hi - lo
    if not np.all(width > 0):
        raise InvalidParameterError(
            "bounds: every feature needs upper > lower (a zero or negative range leaves "
            "nothing to scale); got a range <= 0",
            "bounds",
        )
    if not np.all(np.isfinite(width)):
        raise InvalidParameterError("bounds: every range upper - lower must be finite", "bounds")
    return lo, hi


def _mentions_private(side: object) -> bool:
    """Whether one side of ``bounds`` is a string or a sequence holding one."""
    if isinstance(side, str):
        return True
    if isinstance(side, np.ndarray) and side.dtype.kind in "biuf":
        return False
    try:
        return any(isinstance(v, str) for v in side)  # type: ignore[attr-defined]
    except TypeError:
        return False


def _bounds_spec(value: object) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(lower, upper, lower private, upper private)`` (0-d for scalars, 1-d per feature), checked
    before any data are read: required; every declared value finite; where a feature has both
    sides declared, ``upper - lower`` finite and > 0; a declared side next to a private one at
    most :data:`DECLARED_MAX` in magnitude. Without any ``"private"`` this is
    :func:`_bounds_arg` (the declared bounds of every private transformer) with no private side."""
    if value is None:
        raise InvalidParameterError(
            "bounds: a declared (lower, upper) or 'private' is required and has no default: "
            "every value is clipped to the bounds, so they change the result, and they must not "
            "be read from the data. Choose them from domain knowledge (the range the feature "
            "can take, not the range observed), or pass 'private' to release them privately "
            "with part of the budget; got None",
            "bounds",
        )
    lo_hi: Tuple[Any, ...]
    if isinstance(value, str):
        lo_hi = (value, value) if value == PRIVATE else ()
    else:
        try:
            lo_hi = tuple(value)  # type: ignore[arg-type]
        except TypeError:
            lo_hi = ()
    if len(lo_hi) != 2:
        raise InvalidParameterError(
            f"bounds: must be 'private' or a pair (lower, upper) of numbers, 'private' or "
            f"per-feature arrays; got {value!r}",
            "bounds",
        )
    if not (_mentions_private(lo_hi[0]) or _mentions_private(lo_hi[1])):
        lo, hi = _bounds_arg(value)
        return lo, hi, np.zeros(lo.shape, dtype=bool), np.zeros(hi.shape, dtype=bool)
    lo, plo = _side_arg(lo_hi[0], "lower")
    hi, phi = _side_arg(lo_hi[1], "upper")
    if lo.ndim > 1 or hi.ndim > 1 or (lo.ndim == hi.ndim == 1 and lo.shape != hi.shape):
        raise InvalidParameterError(
            "bounds: lower and upper must be scalars or 1-d arrays of the same length; got "
            f"shapes {lo.shape} and {hi.shape}",
            "bounds",
        )
    if lo.size == 0 or hi.size == 0:
        raise InvalidParameterError("bounds: lower and upper must not be empty", "bounds")
    if not (np.all(np.isfinite(lo[~plo])) and np.all(np.isfinite(hi[~phi]))):
        raise InvalidParameterError("bounds: lower and upper must be finite", "bounds")
    lo_b, hi_b, plo_b, phi_b = np.broadcast_arrays(lo, hi, plo, phi)
    both = ~plo_b & ~phi_b
    with np.errstate(over="ignore", invalid="ignore"):
        width = hi_b[both] - lo_b[both]
    if not np.all(width > 0):
        raise InvalidParameterError(
            "bounds: every feature needs upper > lower (a zero or negative range leaves "
            "nothing to scale); got a range <= 0",
            "bounds",
        )
    if not np.all(np.isfinite(width)):
        raise InvalidParameterError("bounds: every range upper - lower must be finite", "bounds")
    one = plo_b ^ phi_b
    anchor = np.where(plo_b, hi_b, lo_b)[one]
    if np.any(np.abs(anchor) > DECLARED_MAX):
        raise InvalidParameterError(
            f"bounds: a declared side next to a private one must be at most {DECLARED_MAX:g} in "
            "magnitude (the private side is released at most 1e8 away from it)",
            "bounds",
        )
    return lo, hi, plo, phi


def bounds_share_plan(epsilon: float, n: int, k: int, fraction: Optional[float]) -> float:
    """The fraction of ``epsilon`` spent on ``k >= 1`` private quantiles: ``fraction`` when
    declared, else ``k BOUNDS_TARGET / (n epsilon)`` kept within ``[BOUNDS_FRACTION_MIN,
    BOUNDS_FRACTION_MAX]``. Public values only."""
    if fraction is not None:
        return fraction
    want = k * BOUNDS_TARGET / (n * epsilon)
    return min(BOUNDS_FRACTION_MAX, max(BOUNDS_FRACTION_MIN, want))


def _sum_slack(n: int) -> float:
    """``2.02 (B + 1) u n`` (``B = min(BLOCK, n)``, ``u = 2^-53``): an upper bound of twice the
    rounding error ``e(n)`` of one blocked sum of ``n`` terms of magnitude at most 1 (module
    docstring, *Floating point*), the per-feature slack of the sensitivities."""
    return 2.02 * (min(BLOCK, n) + 1) * _U * n


def _sensitivities(n: int, d: int, gaussian_noise: bool) -> Tuple[float, float]:
    """The L1 (Laplace) / L2 (Gaussian) sensitivities of the normalised sums ``T1`` and ``T2``
    with the rounding slack of the blocked sums (module docstring): ``2 + 2.02 (B + 1) u n``
    and ``1 + 2.02 (B + 1) u n`` per feature, times ``d`` (L1) or ``sqrt(d)`` (L2), times ``1 +``
    :data:`SUM_MARGIN`. A function of ``n`` and ``d`` only, never of the bounds."""
    slack = _sum_slack(n)
    size = math.sqrt(d) if gaussian_noise else float(d)
    grow = 1.0 + SUM_MARGIN
    return (2.0 + slack) * size * grow, (1.0 + slack) * size * grow


def _mean_only_sensitivity(n: int) -> float:
    """The L1 (Laplace) or L2 (Gaussian) sensitivity of the weighted sums ``V = fl(rho T1)`` of
    the centring-only release (module docstring, "Centring only"): ``(2 + 2.02 (B + 1) u n + 2 u
    n)`` times ``||rho||_p <= 1`` (up to a relative ``(d + 2) u``), times ``1 +``
    :data:`SUM_MARGIN`. A function of ``n`` only, never of the bounds or of ``d``."""
    return (2.0 + _sum_slack(n) + 2.0 * _U * n) * (1.0 + SUM_MARGIN)


def _mean_weights(r: np.ndarray, gaussian_noise: bool) -> np.ndarray:
    """``rho = r / ||r||_p`` (``p = 1`` Laplace, ``p = 2`` Gaussian): the weights of the
    centring-only release, public functions of the bounds. ``r`` is first scaled by the power of
    2 that brings its largest entry into ``[1/2, 1)`` (exact, unless a tiny entry becomes
    subnormal), so that neither the sum nor the squares overflow."""
    _frac, e = math.frexp(float(np.max(r)))
    rs = np.ldexp(r, -e)
    norm = math.sqrt(float(np.sum(rs * rs))) if gaussian_noise else float(np.sum(rs))
    return np.asarray(rs / norm, dtype=np.float64)


def _normalised_sums(
    X: np.ndarray, lo: np.ndarray, hi: np.ndarray, with_std: bool
) -> List[np.ndarray]:
    """``[T1]`` or ``[T1, T2]``: the column sums of ``z = fl(fl(clip(x) - m) / r)`` and of
    ``fl(z z)``, by NumPy on blocks of :data:`BLOCK` rows and ``math.fsum`` over the block sums
    (module docstring, *Floating point*)."""
    mid, r = _centre(lo, hi)
    n, d = X.shape
    m = -(-n // BLOCK)
    s1 = np.empty((m, d))
    s2 = np.empty((m, d)) if with_std else s1
    for b, start in enumerate(range(0, n, BLOCK)):
        Z = np.clip(X[start : start + BLOCK], lo, hi)
        Z -= mid
        Z /= r  # |Z_ij| <= 1 exactly (module docstring)
        s1[b] = Z.sum(axis=0)
        if with_std:
            Z *= Z  # in [0, 1]
            s2[b] = Z.sum(axis=0)
    parts = [s1, s2] if with_std else [s1]
    return [np.array([math.fsum(p[:, j]) for j in range(d)]) for p in parts]


def per_feature_bounds(lo: np.ndarray, hi: np.ndarray, d: int) -> Tuple[np.ndarray, np.ndarray]:
    """Checked ``(lower, upper)`` (scalars or 1-d, from :func:`_bounds_arg`) as float arrays of
    length ``d``: per-feature bounds of another length than the ``d`` columns of ``X`` (its
    public shape) are refused."""
    for b in (lo, hi):
        if b.ndim == 1 and b.shape[0] != d:
            raise InvalidParameterError(
                f"bounds: per-feature bounds have length {b.shape[0]}, but X has {d} features",
                "bounds",
            )
    return (
        np.broadcast_to(lo, (d,)).astype(np.float64),
        np.broadcast_to(hi, (d,)).astype(np.float64),
    )


def _centre(lo: np.ndarray, hi: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(m, r)``: the midpoints ``l/2 + u/2`` and the half-ranges ``max(fl(u - m), fl(m -
    l)) > 0`` of the bounds (module docstring)."""
    mid = lo / 2.0 + hi / 2.0
    return mid, np.maximum(hi - mid, mid - lo)


def _noise_sd(sensitivity: float, epsilon: float, delta: float, d: int) -> float:
    """The standard deviation of the noise on each normalised sum: ``sqrt(2) sensitivity /
    epsilon`` (Laplace, ``delta = 0``) or the Gaussian mechanism's ``sigma`` for ``d``
    coordinates. Public parameters only (used by the post-processing)."""
    if delta > 0:
        from ..mechanisms import gaussian_sigma

        return float(gaussian_sigma(sensitivity, epsilon, delta, dim=d))
    return math.sqrt(2.0) * sensitivity / epsilon


def _release_bounds(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    plo: np.ndarray,
    phi: np.ndarray,
    quantile: float,
    share: float,
    gen: Any,
) -> Tuple[np.ndarray, np.ndarray]:
    """The bounds with every private side released (module docstring, "Private bounds"): one
    private quantile per feature with a private side, in feature order."""
    from .._private_quantile import private_quantile_bound

    big = np.finfo(np.float64).max
    lo, hi = lo.copy(), hi.copy()
    for j in range(X.shape[1]):
        if not (plo[j] or phi[j]):
            continue
        x = X[:, j]
        with np.errstate(over="ignore"):
            if plo[j] and phi[j]:
                v = np.abs(x)
            elif phi[j]:
                v = np.minimum(np.maximum(x - lo[j], 0.0), big)  # x - l may overflow to inf
            else:
                v = np.minimum(np.maximum(hi[j] - x, 0.0), big)
        g, _event = private_quantile_bound(v, quantile=quantile, epsilon=share, rng=gen)
        if plo[j] and phi[j]:
            lo[j], hi[j] = -g, g
        elif phi[j]:
            hi[j] = max(lo[j] + g, math.nextafter(lo[j], math.inf))
        else:
            lo[j] = min(hi[j] - g, math.nextafter(hi[j], -math.inf))
    return lo, hi


class StandardScaler(  # type: ignore[misc]
    PrivateTransformerMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    r"""Standardise features by a private mean and a private standard deviation.

    A drop-in for :class:`sklearn.preprocessing.StandardScaler` whose fitted ``mean_``,
    ``var_`` and ``scale_`` are differentially private: they are post-processing of noisy
    per-feature sums of the data clipped to per-feature ``bounds`` (each side declared or
    released privately), centred at the bounds' midpoint and divided by their half-range, so
    that every feature's noise is calibrated to its own range (details, replace-one
    sensitivities ``2 d`` and ``d`` in L1, ``2 sqrt(d)`` and ``sqrt(d)`` in L2, and the
    floating-point treatment in the source module ``privlearn.preprocessing._scaler``, and on
    the guarantees page).

    **Guarantee.** ``delta = 0``: ``fit`` is ``epsilon``-differentially private (pure; Laplace
    mechanism, Dwork and Roth, Theorem 3.6, and basic composition, Dwork and Roth, Theorem 3.14,
    of the two sums at ``epsilon / 2`` each). ``delta > 0``: ``(epsilon, delta)``-differentially
    private (the Gaussian mechanism of :func:`privlearn.mechanisms.gaussian` on each sum at
    ``(epsilon / 2, delta / 2)``, basic composition). ``with_std=False`` releases only the
    first sum, at the whole budget, reweighted to ``(r_j / ||r||_p) T1_j`` (sensitivity 2 in L1
    or L2): the same absolute noise on every feature's mean. **Private bounds**: with ``k`` features having a
    ``"private"`` side, each such feature's bound is first released by the exponential
    mechanism over a public grid (:mod:`privlearn._private_quantile`; McSherry and Talwar,
    Theorem 6) at ``epsilon_b``, the largest float at most ``bounds_fraction * epsilon / k``,
    and the sums above are released from the clipped data with the rest
    ``epsilon - k epsilon_b`` in place of ``epsilon``; adaptive basic composition (Dwork and
    Roth, Theorem 3.16) gives ``epsilon`` (and ``delta``) in total. Neighbours replace one row,
    ``n`` public; the guarantee holds with ``rng=None`` or an unseeded generator.
    ``transform`` reads only its own input and the released statistics.

    **Private bounds** (``bounds="private"``, or ``"private"`` for some sides): a feature with
    both sides private is clipped to ``[-B_j, B_j]``, ``B_j`` a private ``bounds_quantile`` of
    ``|x_ij|`` rounded to a grid point (ratio ``2^(1/8)``) in ``[1e-4, 1e8]``: **the bounds are
    symmetric about 0**, so a feature far from 0 compared with its spread should be shifted
    first by a declared offset (a ``FunctionTransformer`` step; see the Examples). A feature
    with one side declared, say ``lower = l``, gets ``upper = l + G_j``, ``G_j`` the private
    quantile of ``max(x_ij - l, 0)`` (symmetrically for a declared upper side). **Declare the
    bounds of binary, one-hot, count and other features with many values at one point**
    (``(0, 1)`` for a 0/1 feature): a quantile of such a feature is ill-posed (a bound
    anywhere on the grid is nearly as likely), and that feature's statistics are then useless.
    A fit with private bounds is refused before anything is drawn when ``n
    epsilon_b < 16``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of one fit, finite and > 0. Required.
    bounds : "private" or (lower, upper)
        Range of every feature: ``"private"`` (every side released privately), or a pair whose
        entries are each a number (the same for all features), ``"private"``, or a sequence
        of length ``n_features`` of numbers and ``"private"``. Where both sides of a feature
        are declared, ``upper > lower``. Values are clipped to the bounds before the sums.
        Required, no default.
    delta : float, default 0.0
        ``0``: Laplace noise, pure DP. In ``(0, 1)``: Gaussian noise, ``(epsilon, delta)``-DP.
    with_mean : bool, default True
        Subtract ``mean_`` in ``transform`` (the mean is released either way).
    with_std : bool, default True
        Release the second moment and divide by ``scale_`` in ``transform``; ``False`` spends the
        whole budget on the mean and leaves ``var_`` and ``scale_`` as ``None``. The noise rule
        follows the output's units: standardising (``True``), each feature's noise is
        proportional to its own range (the output is in units of ``scale_``); centring only
        (``False``), every feature gets the same absolute noise, ``||r||_p`` (``p = 1``
        Laplace, ``2`` Gaussian, ``r`` the half-ranges) times that of one unit sensitivity on
        ``mean_ * n``, since ``x - mean_`` stays in the data's units (this minimises the
        largest absolute error; module docstring, "Centring only").
    bounds_quantile : float, default 0.98
        Quantile of the private bounds, in (0, 1) (used only with a private side).
    bounds_fraction : float or None, default None
        Share of ``epsilon`` spent on the private bounds together, in (0, 1); ``None``: the
        public plan ``32 k / (n epsilon)`` kept within ``[0.1, 0.5]`` (measured, see the
        module). Used only with a private side.
    accountant : Accountant, optional
        Charged once per fit (label ``"StandardScaler"``, one composed event: the bounds'
        bounded-range events and the sums' events) only if the fit succeeds; a spend that
        does not fit raises ``BudgetExceededError`` before the data are read. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); an integer seed is reproducible, not private.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
        Private mean, in ``[lower, upper]`` of ``bounds_``.
    var_ : ndarray of shape (n_features,) or None
        Private variance, in ``(0, ((upper - lower) / 2)^2]``, at least the noise level of its
        estimate (``None`` with ``with_std=False``).
    scale_ : ndarray of shape (n_features,) or None
        ``sqrt(var_)``, > 0 (``None`` with ``with_std=False``).
    bounds_ : tuple of two ndarrays of shape (n_features,)
        The ``(lower, upper)`` bounds the data were clipped to: the declared values and the
        released private ones (public: part of the release).
    n_samples_seen_ : int
        Number of rows (public).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame input.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.preprocessing import StandardScaler
    >>> X = np.random.default_rng(0).uniform(0, 10, size=(50_000, 2))
    >>> sc = StandardScaler(1.0, bounds=(0.0, 10.0), rng=3).fit(X)  # seeded: not private
    >>> bool(np.allclose(sc.mean_, 5.0, atol=0.05)), bool(np.allclose(sc.scale_, 2.89, atol=0.05))
    (True, True)
    >>> sc.transform(X).shape
    (50000, 2)

    Private bounds. These features are non-negative (known without looking at the data), so
    the lower side is declared and only the upper one is released:

    >>> sc = StandardScaler(1.0, bounds=(0.0, "private"), rng=3).fit(X)
    >>> lower, upper = sc.bounds_
    >>> bool(np.all(lower == 0.0) and np.all((upper > 8.0) & (upper < 11.0)))
    True

    A feature far from 0 (here around 1000, spread 10) is shifted by a declared offset before
    a scaler with both sides private:

    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from privlearn.pipeline import make_private_pipeline
    >>> Z = np.random.default_rng(1).normal(1000.0, 10.0, size=(20_000, 1))
    >>> pipe = make_private_pipeline(
    ...     FunctionTransformer(lambda A: A - 1000.0),
    ...     StandardScaler(1.0, bounds="private", rng=3),
    ... ).fit(Z)
    >>> bool(abs(pipe[-1].mean_[0]) < 1.0 and abs(pipe[-1].scale_[0] - 10.0) < 1.0)
    True
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        bounds: Any = None,
        delta: float = 0.0,
        with_mean: bool = True,
        with_std: bool = True,
        bounds_quantile: float = BOUNDS_QUANTILE,
        bounds_fraction: Optional[float] = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.delta = delta
        self.with_mean = with_mean
        self.with_std = with_std
        self.bounds_quantile = bounds_quantile
        self.bounds_fraction = bounds_fraction
        self.accountant = accountant
        self.rng = rng

    # -- parameters (checked before any data are read) -------------------------------------------

    def _params(
        self,
    ) -> Tuple[
        float,
        float,
        bool,
        bool,
        Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        float,
        Optional[float],
    ]:
        from .._private_quantile import check_quantile

        eps = check_epsilon(self.epsilon, exact=True)
        delta = check_delta(self.delta, zero_ok=True, exact=True)
        with_mean = check_boolean(self.with_mean, "with_mean")
        with_std = check_boolean(self.with_std, "with_std")
        bounds = _bounds_spec(self.bounds)
        try:
            quantile = check_quantile(self.bounds_quantile)
        except InvalidParameterError as err:
            raise InvalidParameterError(
                str(err).replace("quantile:", "bounds_quantile:", 1), "bounds_quantile"
            ) from None
        fraction = (
            None
            if self.bounds_fraction is None
            else check_real(
                self.bounds_fraction, "bounds_fraction", 0.0, 1.0, lo_open=True, hi_open=True
            )
        )
        check_accountant(self.accountant)
        return eps, delta, with_mean, with_std, bounds, quantile, fraction

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon)`` (``delta = 0``) or ``Budget(epsilon, delta)``: what one fit on
        ``n_samples`` rows charges (replace-one neighbours, ``n`` public), from the parameters
        only. With private bounds the budget is the same (the bounds take their share of it);
        whether such a fit is refused for a small ``n`` depends also on the number of features
        (see ``fit``).

        Raises
        ------
        InvalidParameterError
            If a parameter is missing or invalid.
        """
        from ..accounting import Budget

        check_integer(n_samples, "n_samples", 1)
        eps, delta = self._params()[:2]
        return Budget(eps, delta) if delta > 0 else Budget(eps)

    # -- fit ----------------------------------------------------------------------------------

    def fit(self, X: Any, y: Any = None) -> "StandardScaler":
        """Release the private statistics of ``X`` (``y`` is ignored), and first the private
        bounds if any side of ``bounds`` is ``"private"``, charging the guarantee of the class
        docstring once.

        Raises
        ------
        InvalidParameterError
            On a bad or missing parameter (``bounds`` first, before ``X`` is read), or bad data
            (NaN, inf, not 2-d, empty, per-feature bounds of another length than the number of
            columns); with private bounds, when ``n`` times one quantile's share of
            ``epsilon`` is below ``BOUNDS_MIN = 16`` (a function of the parameters, ``n`` and
            ``d``). Nothing is drawn or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is drawn.
        """
        from .._private_quantile import split_epsilon
        from ..accounting._event import PrivacyEvent
        from ..mechanisms import _charged, _gaussian_event, gaussian, laplace
        from ..random import as_generator

        eps, delta, _with_mean, with_std, (lo, hi, plo, phi), quantile, fraction = self._params()
        Xv = self._validate(X, reset=True)
        n, d = int(Xv.shape[0]), int(Xv.shape[1])
        lo, hi = per_feature_bounds(lo, hi, d)
        plo = np.broadcast_to(plo, (d,)).copy()
        phi = np.broadcast_to(phi, (d,)).copy()
        k = int(np.count_nonzero(plo | phi))  # one private quantile per such feature
        gaussian_noise = delta > 0
        shares: Tuple[float, ...] = ()
        rest = eps
        if k:
            f = bounds_share_plan(eps, n, k, fraction)
            try:
                shares, rest = split_epsilon(eps, f, k)
            except InvalidParameterError:  # a share that rounds to 0 (public values only)
                raise InvalidParameterError(
                    f"bounds_fraction: {f:g} of epsilon = {eps:g} over {k} private quantiles "
                    "leaves a share that rounds to 0",
                    "bounds_fraction",
                ) from None
            if n * shares[0] < BOUNDS_MIN:
                raise InvalidParameterError(
                    f"bounds: private bounds need n * epsilon_b >= {BOUNDS_MIN:g} for each of "
                    f"the {k} private quantiles (one per feature with a private side), where "
                    f"epsilon_b = bounds_fraction * epsilon / {k}; here n = {n}, epsilon = "
                    f"{eps:g}, bounds_fraction = {f:g} give {n * shares[0]:.3g}: the quantiles "
                    "would be too unreliable. Declare the bounds (or some sides of them), raise "
                    "bounds_fraction, or use more rows or a larger epsilon",
                    "bounds",
                )
        # The normalised sums' sensitivities depend on n and d only, declared or private bounds
        # alike (module docstring): the noise laws and the native events are fixed before the
        # data are read.
        # Centring only: the weighted sums V = fl(rho T1), sensitivity (2 + ...) ||rho||_p with
        # ||rho||_p = 1 (module docstring, "Centring only").
        n_sums = 2 if with_std else 1
        sens: Tuple[float, ...] = (
            _sensitivities(n, d, gaussian_noise) if with_std else (_mean_only_sensitivity(n),)
        )
        e_sum = rest / 2.0 if with_std else rest  # exact halves
        dl_sum = delta / 2.0 if with_std else delta
        gen = as_generator(self.rng)
        shape = np.zeros(d)

        def event() -> Any:
            from ..accounting import Budget

            events = [PrivacyEvent.bounded_range(s) for s in shares]
            if gaussian_noise:
                events += [
                    _gaussian_event(shape, s, e_sum, dl_sum, "exact", "analytic") for s in sens
                ]
            else:
                events += [PrivacyEvent.pure(e_sum)] * n_sums
            budget = Budget(eps, delta) if gaussian_noise else Budget(eps)
            return PrivacyEvent.composed(events, budget=budget)

        def release() -> Tuple[List[np.ndarray], np.ndarray, np.ndarray]:
            b_lo, b_hi = lo, hi
            if k:
                b_lo, b_hi = _release_bounds(Xv, lo, hi, plo, phi, quantile, shares[0], gen)
            sums = _normalised_sums(Xv, b_lo, b_hi, with_std)
            if not with_std:  # V = fl(rho T1), rho public (declared or released bounds)
                sums = [_mean_weights(_centre(b_lo, b_hi)[1], gaussian_noise) * sums[0]]
            out = []
            for value, s in zip(sums, sens):
                noisy: Any
                if gaussian_noise:
                    noisy = gaussian(value, s, e_sum, dl_sum, rng=gen)
                else:
                    noisy = laplace(value, s, e_sum, rng=gen)
                out.append(np.asarray(noisy, dtype=np.float64).reshape(d))
            return out, b_lo, b_hi

        released, b_lo, b_hi = _charged(self.accountant, eps, delta, LABEL, release, event=event)

        # Post-processing (n public; the bounds are public parameters or released values).
        mid, r = _centre(b_lo, b_hi)
        if with_std:
            t1 = released[0] / n
        else:  # T1~ = V~ / rho (a weight that underflowed to 0 gives the midpoint)
            rho = _mean_weights(r, gaussian_noise)
            with np.errstate(divide="ignore", invalid="ignore"):
                t1 = np.where(rho > 0, released[0] / np.where(rho > 0, rho, 1.0), 0.0) / n
        self.mean_ = mid + r * np.clip(t1, -1.0, 1.0)
        self.var_: Optional[np.ndarray]
        self.scale_: Optional[np.ndarray]
        if with_std:
            # The variance in units of r^2, raised to the noise level of its own estimate
            # (public: the noise laws' standard deviations and n; see "A variance at the noise
            # level" in the module docstring), so that a noisy variance at or below 0 does not
            # become scale_ = 1 in the data's units.
            sd1, sd2 = (_noise_sd(s, e_sum, dl_sum, d) for s in sens)
            t1c = np.clip(t1, -1.0, 1.0)
            floor = np.minimum((sd2 + 2.0 * np.abs(t1c) * sd1) / n, 1.0)
            v = np.clip(released[1] / n - t1 * t1, floor, 1.0)
            self.var_ = (r * v) * r  # finite even when r^2 overflows
            self.scale_ = r * np.sqrt(v)  # sqrt(var_) up to rounding, > 0
        else:
            self.var_ = None
            self.scale_ = None
        self.bounds_ = (b_lo, b_hi)
        self.n_samples_seen_ = n
        return self

    # -- transform ------------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "mean_")

    def transform(self, X: Any) -> np.ndarray:
        """``(X - mean_) / scale_`` (subtraction with ``with_mean``, division with
        ``with_std``), as scikit-learn's scaler; no clipping."""
        self._check_fitted()
        Xv = np.array(self._validate(X, reset=False), copy=True)
        if self.with_mean:
            Xv -= self.mean_
        if self.scale_ is not None:
            Xv /= self.scale_
        return Xv

    def inverse_transform(self, X: Any) -> np.ndarray:
        """``X * scale_ + mean_``: undo :meth:`transform` (``X`` is transformed data: its
        column names are not checked, as in scikit-learn)."""
        from sklearn.utils import check_array

        self._check_fitted()
        try:
            Xv = np.array(check_array(X, dtype=np.float64), copy=True)
        except (TypeError, ValueError) as err:
            raise InvalidParameterError(f"X: {err}", "X") from None
        if Xv.shape[1] != self.n_features_in_:
            raise InvalidParameterError(
                f"X: has {Xv.shape[1]} features, but StandardScaler was fitted with "
                f"{self.n_features_in_}",
                "X",
            )
        if self.scale_ is not None:
            Xv *= self.scale_
        if self.with_mean:
            Xv += self.mean_
        return Xv
