1;  % Octave script file (it defines functions below)
% LapSVMp (Melacci 2012, lapsvmp_v02) on the splits and parameters of melacci2011.toml, written by
%     python benchmarks/peer_melacci2011.py --export DATA_DIR
% Usage (one BLAS thread):
%     OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 octave --no-gui --norc -q benchmarks/peers/lapsvmp_melacci_driver.m \
%         LAPSVMP_DIR DATA_DIR OUT_CSV
% For each <task>__<split>.mat: K = calckernel (RBF), L = laplacian (kNN by euclidean, heat weights of
% LapSVMp's default width or of the declared width, or binary weights, normalised or not as the method
% says, power p), then for each method row
% lapsvmp with no bias: Newton (Cg = 0; NewtonLineSearch as declared) or PCG (Cg = 1) with the
% stability (CgStopType 1), validation (2) or mixed (3) check at LapSVMp's default constants and
% period round(sqrt(n)/2) (set explicitly: see run_method); Hinge = 0 is LapRLSC. MaxIter = 1000. Multi-class tasks: one against all,
% the class of the largest decision value. Writes OUT_CSV afresh: experiment,task,method,scenario,split,metric,value
% rows (errors in %, iterations: for one against all the mean count over the classes' binary runs).

function [err_t, err_u, err_v, iters] = run_method(o, S, K, Kv, Kt, Ls)
  options = make_options('gamma_A', o(4), 'gamma_I', o(5));
  options.Verbose = 0; options.UseBias = 0; options.MaxIter = 1000;
  options.Hinge = o(1); options.Cg = o(2); options.NewtonLineSearch = o(10);
  if o(2) == 1
    options.CgStopType = o(3);
    % the check period, set here for every check: lapsvmp.m sets its default round(sqrt(n)/2) for the
    % stability and validation checks when CgStopIter is empty, but for the mixed check only when the
    % field is absent, and make_options creates it empty, so that check would never run (1000 iterations)
    options.CgStopIter = round(sqrt(numel(S.Y)) / 2);
  end
  Y = S.Y(:); C = S.n_classes; n = numel(Y);
  if C == 2, targets = 1; else, targets = 1:C; end
  Ft = zeros(size(Kt, 1), numel(targets)); Fu = zeros(n - nnz(Y), numel(targets));
  Fv = zeros(size(Kv, 1), numel(targets)); iters = 0;
  lab = Y ~= 0;
  for c = 1:numel(targets)
    if C == 2
      Yc = Y; Yv = S.Yv(:);
    else
      Yc = zeros(n, 1); Yc(lab) = 2 * (Y(lab) == targets(c)) - 1;
      Yv = 2 * (S.Yv(:) == targets(c)) - 1;
    end
    data.K = K; data.L = Ls; data.Y = Yc; data.Kv = Kv; data.Yv = Yv; data.X = S.X;
    cls = lapsvmp(options, data);
    % lapsvmp keeps alpha only on its nonzero entries (cls.svs): with gamma_I = 0 (svm, rlsc) U's are zero
    alpha = zeros(n, 1); alpha(cls.svs) = cls.alpha;
    Ft(:, c) = Kt * alpha + cls.b;
    Fv(:, c) = Kv * alpha + cls.b;
    f = K * alpha + cls.b; Fu(:, c) = f(~lab);
    iters = iters + cls.iters / numel(targets);
  end
  if C == 2
    err_t = 100 * mean(sign(Ft) ~= S.Yt(:)); err_u = 100 * mean(sign(Fu) ~= S.Yu(:));
    err_v = 100 * mean(sign(Fv) ~= S.Yv(:));
  else
    [~, pt] = max(Ft, [], 2); [~, pu] = max(Fu, [], 2); [~, pv] = max(Fv, [], 2);
    err_t = 100 * mean(pt ~= S.Yt(:)); err_u = 100 * mean(pu ~= S.Yu(:)); err_v = 100 * mean(pv ~= S.Yv(:));
  end
end

args = argv();
if numel(args) < 3
  error('usage: lapsvmp_melacci_driver.m LAPSVMP_DIR DATA_DIR OUT_CSV');
end
lapsvmp_dir = args{1}; data_dir = args{2}; out_csv = args{3};
warning('off', 'Octave:shadowed-function');
addpath(fullfile(lapsvmp_dir, 'classifiers'), fullfile(lapsvmp_dir, 'graph'), lapsvmp_dir);
files = dir(fullfile(data_dir, '*.mat'));
fid = fopen(out_csv, 'w');   % a fresh file: rerunning the documented commands gives the csv, not a copy appended
fprintf(fid, 'experiment,task,method,scenario,split,metric,value\n');
for k = 1:numel(files)
  S = load(fullfile(data_dir, files(k).name));
  task = strtrim(char(S.task(:)')); split = S.split;   % the name's UTF-8 bytes (uint8), written as they are
  methods = S.methods; O = S.options;
  graphs = struct('key', {}, 'L', {});
  t0 = tic;
  if any(O(:, 6) ~= O(1, 6))
    error('%s: the methods of a task share the kernel width', task);
  end
  kopt = make_options('Kernel', 'rbf', 'KernelParam', O(1, 6));
  K = calckernel(kopt, S.X); Kv = calckernel(kopt, S.X, S.Xv); Kt = calckernel(kopt, S.X, S.Xt);
  for m = 1:size(O, 1)
    o = O(m, :);
    key = sprintf('%g_%g_%g_%g_%g', o(7), o(8), o(9), o(11), o(12));
    hit = find(strcmp({graphs.key}, key));
    if isempty(hit)
      weights = {'heat', 'binary'};   % o(11); o(12): the heat width, 0 = LapSVMp's default (mean kNN distance)
      gopt = make_options('NN', round(o(7)), 'GraphDistanceFunction', 'euclidean', 'GraphWeights', weights{o(11)}, ...
                          'GraphWeightParam', o(12), 'LaplacianNormalize', o(9), 'LaplacianDegree', round(o(8)));
      Ls = laplacian(gopt, S.X);
      graphs(end + 1) = struct('key', key, 'L', Ls);
    else
      Ls = graphs(hit).L;
    end
    [et, eu, ev, it] = run_method(o, S, K, Kv, Kt, Ls);
    label = strtrim(methods{m});
    row = @(metric, value) fprintf(fid, 'lapsvmp,"%s","%s",validation,%d,%s,%.10g\n', task, label, split, metric, value);
    row('test_error', et); row('unlabeled_error', eu); row('validation_error', ev); row('n_iter', it);
  end
  fflush(fid);
  printf('%s split %d: %d methods, %.1f s\n', task, split, size(O, 1), toc(t0)); fflush(stdout);
end
fclose(fid);
