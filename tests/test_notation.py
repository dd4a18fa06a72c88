"""One meaning per symbol: a symbol that chapters/notation.md assigns to one meaning
is not used on a page with another meaning.

FORBIDDEN lists (page glob, regular expression, reason): the expression must not occur
in the MyST sources matched by the glob.  The reason says which symbol the page uses
instead, so a failure tells the author what to write.  Each chapter has its own block.
"""

import re
from pathlib import Path

import pytest

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"

FORBIDDEN = [
    # ---- book-wide ----
    ("0[1-5]*.md", r"\\beta\^2|\\bar\\beta", "beta is a prior pseudo-count; a mean squared error is MSE"),
    ("0[1-5]*.md", r"\\delta_[kl]\(x", "delta is a shift or step; the discriminant function of chapter 3 is g_k(x)"),
    ("0[1-5]*.md", r"(?<![\w\\.])g'?\((?!x\))", "g is chapter 3's discriminant function g_k(x) only; a log-density up to a "
                                               "constant is written out (ell(theta) + ln p(theta), ln q(Theta))"),
    ("0[1245]*.md", r"(?<![\w\\])J(?:\(|_\{| = |\$)", "J is Fisher's criterion J(w) and its values J_j (chapter 3); the "
                                                  "Lagrangian is written out, k-means' sum of squares is named "
                                                  "in words, chapter 5's couplings are G_ml"),
    ("0[1-5]*.md", r"\\nu_0", "the (inverse-)Wishart degrees of freedom are kappa (kappa_0), not nu_0; "
                              "nu is a Lagrange multiplier"),
    ("0[1-35]*.md", r"\\tau|\btau\b|\btau_", "tau is only the exponent of stepwise EM's steps eta_t = (t + 2)^(-tau) "
                                    "(chapter 4); a posterior mean's weight is the shrinkage intensity omega "
                                    "(the data get 1 - omega), eigenvalues are eig_j(A), an angle is angle(w_1, w_2)"),
    ("0[1-5]*.md", r"\\epsilon(?!_\{\\+(?:text|mathrm)\{mach)", "epsilon is the covariance ridge, written varepsilon "
                                                          "(reg_covar); only the machine epsilon is epsilon_mach"),
    ("0[125]*.md", r"\\varepsilon", "varepsilon is the covariance ridge (reg_covar, chapters 3-4): probit's noise is "
                                  "a latent z, a test error is err(w, b), err_NB(n), a tolerance is named in words"),
    ("04_1*.md", r"\\(?:var)?epsilon = |\\(?:var)?epsilon\$? terms", "varepsilon is the covariance ridge; a small responsibility "
                                                      "is named as what it is (gamma_12)"),
    ("0[1-5]*.md", r"(?<![\w\\])B\(W|(?<!\\mathcal )(?<![\w\\])B_t\b", "B is only the Beta function B(alpha, "
                   "beta): the Wishart's normalising coefficient is C(W, kappa), a minibatch is mathcal B_t"),
    ("0[1-5]*.md", r"\\mathcal\s*\{?Q", "Q is only Dempster's Q(theta | theta^(t)); the variational family is "
                                        "mathcal D"),
    ("0[1-5]*.md", r"(?<![\w\\])H\[[qp]", "entropy is H(.) with round brackets, as on the notation page"),
    ("0[2-5]*.md", r"(?<![\w\\])r(?:_\{?[0-9a-z]\b|\()", "r is chapter 1's probit ratio r(u) only: an "
                                                     "exponential's rate is theta_k (03_2), the optimal "
                                                     "mean-field factor is q_m^* (05_1)"),
    ("05*.md", r"\\eta\^\\top|A\(\\eta|(?<![\w\\])s\(t\)", "eta is a step size and A a matrix; the "
                                       "exponential-family lemma writes varpi, stat(v), lognorm(varpi)"),
    ("05_elbo*.md", r"\$S\$ latent states", "S is the scatter matrix; a latent space's states are named "
                                         "as states z"),
    ("04_2*.md", r"\\mu_c\b|\{ic\}|component \$c\$", "c is a count or a chunk's centre in chapter 4; "
                                              "a component is k"),
    ("04_1*.md", r"S_i\b", "S_k is a scatter matrix; the support of q_i is supp q_i"),
    ("05_elbo*.md", r"constant \$c = ", "c is chapter 1's scale factor and chapter 4's counts and centres; "
                                     "a constant such as -ln(2 pi)/2 is written out"),
    # ---- chapter 1 ----
    ("01*.md", r"(?<![\w\\])x'(?!')", "x' is a held-out point (x'_j, chapter 4): a standardised feature is "
                                       "x^std_j, whitened coordinates are check x = L^-1 x"),
    ("01*.md", r"\\xi|\bxi\b", "xi is chapter 5's mean-field parameter xi_im; the perceptron theorem's margin is u_min"),
    ("01*.md", r"\\lambda\(", "lambda is only the l2 penalty; the probit ratio phi(u)/Phi(u) is r(u)"),
    ("01*.md", r"\\gamma", "gamma is the responsibility (chapter 4); the perceptron's margin is u_min"),
    ("01*.md", r"L_i\(", "L is the likelihood; the perceptron loss is perc(u_i) of the margin u_i"),
    ("01*.md", r"\\top S\b", "S is the scatter matrix; the IRLS weights of Newton's method are Omega"),
    ("01*.md", r"\\theta\^\\star|\\theta_\\star", "the true parameter is theta^*; a separating vector is bar-theta"),
    ("01_2*.md", r"\\sigma\(\\alpha", "alpha is a Dirichlet pseudo-count; Platt scaling is a logistic regression on the score"),
    ("01_2*.md", r"margin \$m", "the margin s_i t_i is u (m is not a margin)"),
    ("01*.md", r"\\theta_\{?k\b|\\theta_\{k ?\+ ?1\}|\\theta_0\b", "k is the class index: the perceptron's "
                                                             "iterate after t updates is theta^(t), a coordinate "
                                                             "of theta is theta_j or theta_l"),
    # ---- chapter 2 ----
    ("02*.md", r"\\rho", "rho is a correlation only; the weight of the data in a posterior mean is tau"),
    ("02*.md", r"\\phi", "phi/varphi is the normal density; Bernoulli naive Bayes uses vartheta_kj, a log-odds is t"),
    ("02*.md", r"\\theta_\\star|\\theta\^\\star", "the true parameter is theta^*"),
    ("02*.md", r"\\Delta_V", "Delta is the Mahalanobis distance; the simplex is P_V"),
    ("02*.md", r"chapter 2's", "chapter 2's pages cite the equation or section instead"),
    ("02_1*.md", r"Beta}\(\\theta \\mid a|Beta}\(a", "the Beta prior is Beta(alpha, beta); b is the intercept"),
    ("02_2*.md", r"s_k\(x", "s_i is the +-1 label; the log joint is a_k(x)"),
    ("02_2*.md", r"\$L\$|L!", "L is the likelihood; the length of a message is T"),
    ("02_3*.md", r"\\gamma_\{ik\}", "responsibilities are introduced with EM in chapter 4"),
    ("02_1*.md", r"(?<![\w\\])A = \\sum|[+-] A\b", "A is a generic matrix; the total concentration is "
                                                  "alpha_bullet = sum_j alpha_j"),
    ("02_4*.md", r"\\in A\b|\$A = \\\{|on \$A\$", "A is a generic matrix; the support of p is supp p"),
    # ---- chapter 3 ----
    ("03_[134]_*.md", r"\\lambda", "lambda is only the l2 penalty strength; Fisher's eigenvalues are J_j, "
                                     "sample eigenvalues eig_j(hat Sigma)"),
    ("03_gaussian*.md", r"\\lambda", "lambda is only the l2 penalty strength"),
    ("03*.md", r"\\alpha", "alpha is a Dirichlet concentration; the Ledoit-Wolf shrinkage intensity is omega"),
    ("03*.md", r"\\(?:var)?phi(?![a-zA-Z])", "phi is the standard normal density only; chapter 3 has no "
                                              "unnormalised weights phi_k or prior phi"),
    ("03*.md", r"\\Lambda", "Lambda is the precision of chapter 5's Gaussian target; chapter 3 writes Sigma^{-1}"),
    ("03*.md", r"\\delta", "delta is a shift or step (chapters 1 and 4); the discriminant function is g_k(x), "
                           "the Ledoit-Wolf dispersion zeta^2, and Kronecker deltas are written out"),
    ("03*.md", r"\\beta", "beta is a prior pseudo-count (Beta(alpha, beta), chapter 5's beta_0); the Ledoit-Wolf "
                          "error of the sample covariance is MSE(hat Sigma), its estimate hat MSE"),
    ("03*.md", r"\bz\b|\bz_|\bZ\b|_z\b", "z is a latent variable (chapters 4-5); the discriminant coordinates are "
                                          "F_d'^T x = (f_j^T x), the proof's residual x_m^perp, and the exercise "
                                          "standardises x itself"),
    ("03*.md", r"\\xi|\bxi_", "xi is chapter 5's mean-field parameter xi_im; Fisher's eigenvalues are "
                                  "J_j = J(f_j)"),
    ("03*.md", r"\bu_[0-9jlr]\b|\bU_r\b|\bu\^\\top|\} u\b", "u_i is chapter 1's margin s_i t_i; the "
                                                             "whitened directions of Fisher's proof are h_j"),
    ("03*.md", r"(?<!-)\bq\b|\bFq\b", "q is a distribution; reduced-rank LDA keeps d' coordinates F_d'^T x"),
    ("03*.md", r"F_r\b|F_\{r\}|I_r\b|h_r\b|\^r\b|\$r(?: [=<]|\$|-dim)|\bF_r =|\(r, folds\)|rank-\{r\}",
     "r is chapter 1's probit ratio r(u); the number of discriminant coordinates kept is d' "
     "(F_{d'}, code n_dims)"),
    ("03*.md", r"(?<![\w.])D = |\bD\.T\b|in D\)", "differences from the mean are `centred` in code (D is not a symbol)"),
    ("03*.md", r"\$T\b|\bT = |\bT - \\Sigma|\\Sigma - T\b", "T is the number of words of a message "
                                                      "(chapter 2); the Ledoit-Wolf target is sigma_bar^2 I"),
    ("03*.md", r"\$m\$|\bm I\b", "m is neither a training-set size (n) nor the Ledoit-Wolf average variance "
                                   "(sigma_bar^2) in chapter 3"),
    ("03*.md", r"\bq_[01k]\b", "q is a distribution over latent variables (chapters 4-5); the squared "
                                 "Mahalanobis distance is Delta_k^2"),
    ("03*.md", r"\bv_[0-9jl]\b", "v_j is a CAVI variance (chapter 5); Fisher's directions are f_j"),
    ("03_3*.md", r"\bc_k\b|\\bar c\b", "c_k are chunked EM's centres (chapter 4); Fisher's proof writes the "
                                       "whitened class means L^{-1} mu_k out"),
    ("0[1-4]*.md", r"\\bar\s*\\mu|\\bar\{\\mu\}|\bmu_bar\b", "a bar on mu is chapter 5's Gaussian-Wishart mean "
                                                       "(mu_bar_0, mu_bar_k); chapter 3's overall mean "
                                                       "sum_k pi_k mu_k is the data mean x_bar"),
    ("03*.md", r"(?<![\w-])M(?![\w-])", "M is the number of chapter 5's binary causes; Fisher's proof writes "
                                         "the whitened between-class covariance L^{-1} S_B L^{-T} out"),
    # ---- chapter 4 ----
    ("04*.md", r"G\(Q|\$G\$|\bG_trace|G\\bigl\(", "EM's lower bound is \\mathcal L(q, theta) in chapters 4 and 5, not G(Q, theta)"),
    ("04*.md", r"Q_\{i|Q_i\b|Q\^\{\(t|\\mathcal Q\b", "a distribution over the latent labels is a lower-case q (q_i, q_{ik}, q^{(t)}); "
                                                  "the capital Q is Dempster's Q(theta | theta^(t))"),
    ("04*.md", r"\bL_(true|trace|iter|ex|new|fixed)\b|(?<!mathcal )\bL = |\bL\(true|final L\b|\bL before", "the log-likelihood is ell in text and printouts, not L"),
    ("04*.md", r"\\lambda", "lambda is the l2 penalty only; chapter 4's Lagrange multiplier is nu"),
    ("04*.md", r"\\phi|\\varphi", "phi is the standard normal density only; mixing weights are pi_k"),
    ("04*.md", r"\\nu\b[^\n]{0,40}degrees of freedom|prior_dof=\\nu", "the inverse-Wishart degrees of freedom are kappa"),
    ("04*.md", r"\\rho\b", "rho is a correlation only"),
    ("04*.md", r"\\Delta_\{i", "Delta is the Mahalanobis distance; k-means' limit writes the difference of "
                                 "squared distances out"),
    ("04_1*.md", r"\^D\b|\$D\$|\$D = |\(n, D\)|\(K, D\)", "d is the dimension of a data point, the number of "
                                                          "features of a Bernoulli mixture too"),
    ("04_4*.md", r"\bs_k\b|\$D\b|\bD\$|\\lVert D\b|\(D ?/", "s_i is chapter 1's +-1 label and d the dimension "
                                                   "(not D): chunked EM's first-order sum is n_k delta_k, the distance "
                                                   "of a centre from the mean ||delta_k||"),
    ("04_4*.md", r"\\bar s\b|\\hat s\b|\\bar s_|\\hat s_", "s_i is chapter 1's +-1 label: stepwise EM's averaged "
                                                  "statistics are bar{mathcal S} (minibatch averages hat{mathcal S})"),
    ("04_4*.md", r"X\^\{\(c\)\}|\\sum_\{c\}|X\^\{\(C\)\}", "c_k are the centres of chunked EM's sums (c the fixed centre "
                                                         "of stepwise EM); the sums over chunks are written "
                                                         "sum_chunks, not indexed by c"),
    ("04_4*.md", r"(?<![\w.])D = |, D\b|\bD\)|@ D\b|\$m\$|\(m, d\)|\\eta_t / m\b|\bm = len", "a minibatch has |B_t| points "
                                                         "(code n_batch; m is chapter 5's cause index) and "
                                                         "differences x_i - c are diff (D is not a symbol)"),
    ("0[45]*.md", r"(?<!mathcal )N_k\b|N_\{k\}", "soft counts are n_k (lower-case, as on the notation page); "
                                                  "N_kj and N_k are naive Bayes word counts (chapter 2)"),
    # issue 37, chapter 4: one meaning per symbol
    ("04*.md", r"\\Delta|\bDelta\b", "Delta is the Mahalanobis distance only (chapters 1 and 3): 04_2 names its "
                                    "data sets by the free mean's true value theta^*"),
    ("04*.md", r"[MT]'?\(\\theta\^\*\)|- \\theta\^\*|\\theta\^\* \+", "theta^* is the true parameter (chapter 2); "
                                                                     "EM's limit is theta^(infinity)"),
    ("04*.md", r"(?<![\w\\])M'?\(\\theta", "M is the number of chapter 5's binary causes; EM's map is T(theta), "
                                         "as on the chapter page"),
    ("04*.md", r"\$m = |\\frac\{1\}\{m\}|m = \\kappa|ell/m\b|n_k \+ m\b|\\Psi ?/ ?m\b|a_k - m\b",
     "m is chapter 5's cause index: chapter 4's log-sum-exp shift is a_max (as in chapter 1), a held-out "
     "sample has n' points, and the inverse-Wishart's kappa + d + 1 is written out"),
    ("04*.md", r"F\(\\gamma", "the expected complete-data log-likelihood is F(q, theta) (notation page); the M-step "
                            "takes q = gamma, it is not F(gamma, theta)"),
    # ---- chapter 5 ----
    ("05*.md", r"n_k S_k|weighted covariances? \$S_k", "S_k is chapter 4's weighted scatter "
                                                    "sum_i gamma_ik (x_i - xbar_k)(x_i - xbar_k)^T, "
                                                    "the weighted covariance S_k / n_k"),
    ("05*.md", r"\br_\{i|\\rho_\{i", "responsibilities are gamma_ik and their logits the expected log joints a_ik; "
                                  "r is not a responsibility and rho is a correlation only"),
    ("05*.md", r"\\lambda", "lambda is the l2 penalty; chapter 5's mean-field parameters are xi_im"),
    ("05*.md", r"\\phi|\\varphi", "phi is the standard normal density; the encoder's weights are upsilon"),
    ("05*.md", r"\\nu(?![a-zA-Z])", "nu is a Lagrange multiplier; the Wishart degrees of freedom are kappa"),
    ("05*.md", r"G\(Q|Q\^\{\(t", "chapter 4's bound is L(q, theta) and its E-step gives q^(t+1); not G(Q) or Q^(t)"),
    ("05*.md", r"\$\\alpha\$, \$\(\\pi_1|cos\(alpha\)", "alpha is a Dirichlet concentration; the angle is angle(w_1, w_2)"),
    ("05*.md", r"a_\{im\}", "a_ik is the (expected) log joint of chapter 5's mixtures; the logit of a binary "
                             "cause is t_im"),
    ("05*.md", r"(?<![\\\w])m_[0jk12]\b|\$m = |\(m - \\mu\)|\(\\mu - m\)|\nm = \\mu|\bm0\b|\bm_(?:ex|q|c|m)\b|"
               r"alpha, beta, m, kappa", "m is the index of chapter 5's binary causes (z_im, xi_im, t_im, G_ml): "
                                        "CAVI's means are zbar_j = E_q[z_j], the Gaussian-Wishart's mu_bar_0, "
                                        "mu_bar_k (Bishop's m_0, m_k)"),
    ("05_[12e]*.md", r"\\ln C\b|\bC = |\bC\\,|\$C\$", "C(alpha) is the Dirichlet's normalising coefficient "
                                                    "(05_3); the mean-field proof writes its normaliser "
                                                    "as the sum of e^f(z_m)"),
    ("05*.md", r"\\Lambda_\{jk\}|\\Sigma_\{[jk]k\}|k \\ne j|\\bar z_k|\$k\$ runs over the other",
     "k is the class or component index; CAVI's second coordinate is l (Lambda_jl, zbar_l, l != j)"),
    ("05*.md", r"\blam(?:_init)?\b", "the mean-field parameters xi_im are `xi` in code, in lib.variational too "
                                   "(xi, xi_init, the attribute xi_)"),
    # ---- issue 37, chapters 1-2 ----
    ("01_1*.md", r"\\hat\\sigma_j", "sigma(t) is the sigmoid on chapter 1's pages; standardising divides by "
                                  "the standard deviation sd_j"),
    ("01_3*.md", r"\\sigma\(|\\sigma\\bigl\(", "01_3's sigma^2_kj are naive Bayes variances: the sigmoid is "
                                            "written out or cited (dvg-sigmoid, dvg-model), not sigma(.)"),
    ("02*.md", r"\\sigma\(t\)", "chapter 2's sigma is a standard deviation; the sigmoid is written out, "
                              "1/(1 + e^{-t})"),
    ("01*.md", r"C = 1/\\lambda", "C is a normalising coefficient only (C(alpha), C(W, kappa)); scikit-learn's "
                                "parameter is named in code, `C = 1 / l2`"),
    ("01*.md", r"\bz_j = \(x_j|\^\\top z \+ b", "z is a latent variable; standardised features are x'_j"),
    ("0[1-5]*.md", r"e_\{\\max\}|\be_max\b", "an eigenvalue is eig_j(A), the largest eig_max(A)"),
    ("0[12]*.md", r"\bridge\b", "the ridge is varepsilon I (reg_covar, chapters 3-4); the weight penalty "
                               "-(lambda/2) ||w||^2 is the l2 penalty"),
    ("05_2*.md", r"\bridge\b", "issue 37 (fired on 05_2 of d26e556, seven times): the ridge is varepsilon I "
                               "(reg_covar); a correlated Gaussian's long diagonal axis is its crest"),
    ("02*.md", r"\bn_j\b|n_\{j\}", "n_k counts the points of class k; word counts are N_j (N = sum_j N_j), "
                                   "as naive Bayes' N_kj"),
    ("01*.md", r"\\le R\b|\(R ?/ ?u_|R\^2|\\eta R\b|\bR = ", "R is the risk R(theta) (chapter 2); the "
                                                          "perceptron's radius is ||x~||_max"),
    ("01_2*.md", r"\\sigma\(a t|\ba = 4 ?\\varphi|\ba = \\pi|\$a \\approx|\ba = 1\.70",
     "a_k(x) is the log joint (01_3); the probit scale is c in sigma(c t)"),
    ("02_4*.md", r"\$k/2\$|\$k = 2\$", "k is the class or component index; a parameter count is dim theta"),
    ("04*.md", r"\+ ?2 ?p\$|\+ ?p ?\\ln n|\$p\$ is the number", "p is a density; a parameter count is dim theta "
                                                                 "(BIC, AIC), as in 02_4"),
    # ---- issue 37, chapters 3 and 5 (each row fired on the text of a915eba) ----
    ("03*.md", r"\\sigma\(", "in chapter 3 sigma is a standard deviation (Sigma = sigma^2 I, bar sigma^2): the "
                             "sigmoid is sigm, as in chapter 5"),
    ("03*.md", r"(?<![\w\\{])B(?=\s*(?:=|x_o|\\mu|\\Sigma|\^\\top|\\,))", "B is only the Beta function: the "
     "regression coefficients Sigma_mo Sigma_oo^{-1} of x_m on x_o are written out"),
    ("03*.md", r"(?<![\w\\.'\"])u(?![\w'\"])", "u is chapter 1's margin only: chapter 3's vector of standard normals "
                                            "is x_std"),
    ("notation.md", r"always a prior pseudo-count", "beta is a pseudo-count, of the prior (beta_0) or of chapter 5's "
                                                    "factor (beta_k = beta_0 + n_k)"),
    ("05_1*.md", r"\\pi_[ml12]\b|\$\\pi\$ of shape|\\xi = \\pi\b", "the probability that binary cause m is on is "
     "vartheta_m (the vartheta_m need not sum to one); pi_k are mixing weights"),
    ("05_3*.md", r"(?<!\\mathcal )(?<![\w\\{])W(?![\w_^{])", "the bare W is the binary causes' matrix (05_1); the "
     "Wishart scale always carries a subscript, W_0 or W_k"),
    ("05*.md", r"\\delta_\{?\\hat", "delta is a shift or step: a point mass is the indicator 1{Z = Z-hat}"),
    ("03*.md", r"ridge\s+penalty", "issue 37 (text round 3, fired on 03_1 and 03_2 of d26e556): the weight penalty "
     "-(lambda/2) ||w||^2 is the l2 penalty; the ridge is varepsilon I (reg_covar)"),
]

# Library code that implements a symbol of the notation page uses its letter.
LIB_FORBIDDEN = [
    ("bayesian_mixture.py", r"(?<!who writes :math:`)(?<![\w\\])B\(W|\\ln B\b", "the Wishart's normalising coefficient is "
     "C(W, kappa), as the book writes it; B is the Beta function"),
    ("variational.py", r"\blam(?:_init|_)?\b", "the mean-field parameters xi_im are xi, xi_init, xi_"),
    ("variational.py", r"(?<![\\\w])m_[jk]\b|:math:`m`|\(m - \\mu\)|\(\\mu - m\)|:math:`m = ", "m is the index of "
     "the binary causes; CAVI's means are zbar_j"),
    ("checks/ch05_vi.py", r"\bm_[jk]\b", "m is the index of the binary causes; CAVI's means are zbar_j"),
    ("bayesian_mixture.py", r"(?<![\\\w`])m_[0k]\b|:math:`m`", "the Gaussian-Wishart means are "
     "mu_bar_0, mu_bar_k (Bishop's m_0, m_k); m is the index of the binary causes"),
    ("variational.py", r"Lambda_\{?jk|zbar_k|\\bar z_k|k != j|k \\ne j", "k is the class or component "
     "index; CAVI's second coordinate is l (Lambda_jl, zbar_l)"),
    ("checks/ch05_vi.py", r"Lambda_\{?jk|zbar_k|k != j|sum over k", "k is the class or component index; "
     "CAVI's second coordinate is l (Lambda_jl, zbar_l)"),
    ("checks/ch05.py", r"\blam\b", "the mean-field parameters xi_im are xi"),
    ("discriminant.py", r"\\bar\\mu|\bmu_bar\b", "the overall mean sum_k pi_k mu_k is the data mean x_bar; "
     "a bar on mu is chapter 5's Gaussian-Wishart mean"),
    ("discriminant.py", r":math:`r = |shape \(d, r\)", "r is chapter 1's probit ratio; the number of "
                                                  "discriminant directions is d' = min(K - 1, d)"),
    ("discriminant.py", r"\\xi|:math:`u`|\} u\b|\bv = L", "Fisher's eigenvalues are J_j = J(f_j), the whitened "
                                                  "eigenvectors h_j, the directions f_j"),
    ("bernoulli_mixture.py", r"\^D\b|:math:`D`|\(K, D\)", "d is the dimension, the number of binary features too"),
    ("checks/ch04_scale.py", r"\bs_k\b", "chunked EM's first-order sum is n_k delta_k (first), s_i is the +-1 label"),
    ("_dask.py", r"\bs_k\b", "chunked EM's first-order sum is n_k delta_k, s_i is the +-1 label"),
    ("online_em.py", r"\\bar s\b|\\hat s\b|\\bar s_|(?<![\w.])D = |, D\b|\bD\)|@ D\b|\bm = len",
     "stepwise EM's statistics are bar{mathcal S}, hat{mathcal S} (s_i is the +-1 label); differences are diff, "
     "the minibatch size n_batch"),
    ("checks/ch04_scale.py", r"\bD\b", "differences x_i - c_k are diff (D is not a symbol)"),
    ("_dask.py", r"nothing\s+cancels", "sums about a centre ||delta_k|| from the mean lose about "
     "2 log10(||delta_k|| / sigma) digits, as 04_4 says: something cancels early in a fit"),
    ("bayesian_mixture.py", r"N_k S_k|of every :math:`S_k`", "S_k is the weighted scatter; the weighted "
                                                               "covariance is S_k / N_k"),
    ("bayesian_mixture.py", r"r_\{i|\\rho_\{i|\blog_rho\b|(?<!writes :math:`)N_k\b|H\[q", "the book's names: "
     "responsibilities gamma_ik, expected log joints a_ik, soft counts n_k, entropy H(.) (Bishop's r_nk, "
     "ln rho_nk, N_k are named only in the notes on Bishop's equations)"),
    ("mixture.py", r"\\epsilon", "varepsilon is the covariance ridge reg_covar; a standard normal draw is named in words"),
    ("logistic.py", r"ridge penalty", "issue 37: the ridge is varepsilon I (reg_covar); the weight penalty is the "
     "l2 penalty"),
    ("logistic.py", r"(?<![\w\\])J\(|\\nabla\^?2? ?J\b|:math:`J\b|\\Delta\b|:math:`L`|\bJ / n\b",
     "issue 37: J is Fisher's criterion, Delta the Mahalanobis distance and L the likelihood; the penalised "
     "log-likelihood is ell_lambda, a Newton step delta"),
    # issue 37: the expected complete-data log-likelihood is F(q, theta), as on the notation page
    ("mixture.py", r"F\(\\gamma", "the expected complete-data log-likelihood is F(q, theta) (notation.md); the E-step's "
     "q is resp"),
    ("variational.py", r"\\pi_m", "the probability that binary cause m is on is vartheta_m; pi_k are mixing weights"),
    ("variational.py", r"\\(?:var)?epsilon", "varepsilon is the covariance ridge reg_covar; a standard normal draw is "
                                            "named in words"),
]
LIB = CHAPTERS.parent / "lib"


def _cases():
    for glob, pattern, reason in FORBIDDEN:
        for path in sorted(CHAPTERS.glob(glob)):
            yield pytest.param(path, pattern, reason, id=f"{path.stem}:{pattern}")


def test_every_rule_matches_some_page():
    for glob, _, _ in FORBIDDEN:
        assert sorted(CHAPTERS.glob(glob)), f"the glob {glob!r} matches no page"


@pytest.mark.parametrize("path, pattern, reason", list(_cases()))
def test_symbol_has_one_meaning(path, pattern, reason):
    text = path.read_text(encoding="utf-8")
    hits = [text.count("\n", 0, m.start()) + 1 for m in re.finditer(pattern, text)]
    assert not hits, f"{path.name} lines {hits}: {reason}"


@pytest.mark.parametrize("name, pattern, reason", LIB_FORBIDDEN, ids=[row[0] for row in LIB_FORBIDDEN])
def test_lib_uses_the_notation(name, pattern, reason):
    text = (LIB / name).read_text(encoding="utf-8")
    hits = [text.count("\n", 0, m.start()) + 1 for m in re.finditer(pattern, text)]
    assert not hits, f"lib/{name} lines {hits}: {reason}"


# Symbols that chapters/notation.md defines in exactly one row (symbol column), so that
# a second row cannot give them a second meaning.
NOTATION_ONE_ROW = [
    (r"\$a_k\b", "the log joint a_k(x) of chapters 1-3 (and chapter 5's a_ik) has one row"),
    # issue 37: alpha_k was a prior concentration in chapter 4 and a posterior one in chapter 5, in two
    # rows; one row now says what every alpha is (a Dirichlet concentration; chapter 5's subscripts)
    (r"\$\\alpha", "every alpha is a Dirichlet concentration, in one row"),
]


@pytest.mark.parametrize("pattern, reason", NOTATION_ONE_ROW, ids=[row[0] for row in NOTATION_ONE_ROW])
def test_notation_page_defines_symbol_once(pattern, reason):
    rows = [line for line in (CHAPTERS / "notation.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| ")]
    hits = [row for row in rows if re.match(pattern, row[2:].split(" | ")[0])]
    assert len(hits) == 1, f"notation.md has {len(hits)} rows for {pattern}: {reason}"
