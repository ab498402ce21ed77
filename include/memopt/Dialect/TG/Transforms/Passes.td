//===- Passes.td - Passes on the tg dialect ----------------*- tablegen -*-===//
//
// The transformations of memopt's training graph, starting with autodiff,
// which turns the imported forward function into the whole training step.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_TD
#define MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def Autodiff : Pass<"tg-autodiff", "::mlir::ModuleOp"> {
  let summary = "Derive the training step (forward, loss, backward, "
                "optimizer update) from the forward function";
  let description = [{
    Replaces the imported forward function `@main` by `@train_step`, one
    function holding the whole training step:

    1. the forward ops, unchanged;
    2. the loss of the (single) forward output against a new `tg.target`
       argument (`tg.mse_loss`, `tg.l1_loss` or `tg.bce_loss`, mean
       reduction; `tg.cross_entropy_loss` or `tg.dice_loss` of logits
       N x C x ... against a class map N x ..., whose class indices the
       target holds as floats; Dice of one channel takes a mask of the
       output's shape); with `loss=ce+dice`, nnU-Net's DC_and_CE_loss:
       `tg.cross_entropy_loss` plus the soft Dice of the foreground
       classes (batch Dice, smooth 1e-5) built from tg ops; with
       `deep-supervision`, the weighted sum of one such loss per forward
       output, each against the target downsampled to the output's shape
       (a strided `tg.slice`, nearest, for class maps; `tg.reshape` and
       `tg.reduce_mean`, area, for the other targets), an output of weight
       0 left out; with `loss=ms-ssim` and `loss=ms-ssim+l1`, a
       subgraph of ordinary tg ops computing 1 - MS-SSIM (5 scales,
       depthwise `tg.conv` with a constant Gaussian window, 2x2
       `tg.avg_pool` between scales; mixed with the mean absolute error
       as 0.84 / 0.16 for `ms-ssim+l1`) on images N x C x H x W with H and
       W above 160, appended to the forward ops and differentiated by their
       own rules; or, with `loss=graph`, the forward function's own rank-0
       first output;
    3. reverse-mode gradients of every value that depends on a parameter
       and reaches the loss, one backward rule per forward op, in reverse
       forward order; a value with several uses sums its gradients with
       `tg.add`;
    4. one `tg.sgd_update` or `tg.adam_update` per parameter that has a
       gradient, with torch.optim's semantics.

    Arguments of `@train_step`: the data inputs (`tg.input`), the target
    (`tg.target = "target"`, absent with `loss=graph`), the parameters
    (`tg.param`), the non-trainable state (`tg.state`), the optimizer state
    of each updated parameter (`tg.opt_state = "<param>.<slot>"`:
    `momentum_buffer` for SGD with momentum, `exp_avg` and `exp_avg_sq` for
    Adam/AdamW) and, when the optimizer needs it, the 1-based step number
    (`tg.step = "step"`, `tensor<i64>`), so that one compiled step serves
    every step, and, when the forward function has a `tg.dropout` or a
    `tg.random_uniform`, the random seed of the step (`tg.seed = "seed"`, `tensor<i64>`). Results:
    the loss (`tg.output = "loss"`, rank 0), the other
    forward outputs, then the updated parameters, states (BatchNorm running
    statistics from `tg.batch_norm`'s `new_running_*` results) and optimizer
    states, named as their arguments.

    With `eval-step`, the pass also emits `@eval_step`, the evaluation
    function of the step (PyTorch's `model.eval()` under `torch.no_grad()`):
    the same arguments as `@train_step`, the loss and the other forward
    outputs as results (the first results of `@train_step`), the forward
    ops with every `tg.batch_norm` replaced by `tg.batch_norm_inference` on
    the running statistics, every `tg.dropout` by its input and every
    random mask that multiplies the activations (drop-path, drop-connect)
    by its expectation, then the loss. It updates nothing. A model that
    uses random numbers otherwise gets no `@eval_step`: a warning, and the
    module attribute `tg.eval_refusal` says why.

    A parameter that the loss does not depend on has no gradient and, as in
    torch.optim, is neither updated nor given optimizer state. An op with no
    gradient rule, or a gradient the rules do not support (a reflect or edge
    pad, a gradient through batch statistics), is an error at that op.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"loss", "loss", "::memopt::tg::LossKind",
           "::memopt::tg::LossKind::mse",
           "The loss of the forward output against the target",
           [{::llvm::cl::values(
             clEnumValN(::memopt::tg::LossKind::mse, "mse",
                        "mean squared error (torch.nn.MSELoss)"),
             clEnumValN(::memopt::tg::LossKind::l1, "l1",
                        "mean absolute error (torch.nn.L1Loss)"),
             clEnumValN(::memopt::tg::LossKind::bce, "bce",
                        "binary cross-entropy (torch.nn.BCELoss)"),
             clEnumValN(::memopt::tg::LossKind::ce, "ce",
                        "multi-class cross-entropy over axis 1 against a "
                        "class map (F.cross_entropy)"),
             clEnumValN(::memopt::tg::LossKind::dice, "dice",
                        "soft Dice of softmax (sigmoid for one channel) "
                        "against a class map (a mask for one channel)"),
             clEnumValN(::memopt::tg::LossKind::ceDice, "ce+dice",
                        "nnU-Net's DC_and_CE_loss: cross-entropy plus soft "
                        "Dice of the foreground classes, built from tg ops"),
             clEnumValN(::memopt::tg::LossKind::msssim, "ms-ssim",
                        "1 - MS-SSIM (pytorch_msssim.ms_ssim, data range "
                        "1), built from tg ops"),
             clEnumValN(::memopt::tg::LossKind::msssimL1, "ms-ssim+l1",
                        "0.84 (1 - MS-SSIM) + 0.16 L1 (Zhao et al. 2017), "
                        "built from tg ops"),
             clEnumValN(::memopt::tg::LossKind::graph, "graph",
                        "the forward function's rank-0 first output"))}]>,
    Option<"deepSupervision", "deep-supervision", "std::string", "",
           "One loss per forward output against the target downsampled to "
           "its shape, weighted: nnunet (1, 1/2, 1/4, ..., 0 normalized), "
           "halving (1, 1/2, 1/4, ... normalized) or W0,W1,... (as given); "
           "empty: the loss of the single output">,
    Option<"optimizer", "optimizer", "::memopt::tg::OptimizerKind",
           "::memopt::tg::OptimizerKind::sgd", "The parameter update",
           [{::llvm::cl::values(
             clEnumValN(::memopt::tg::OptimizerKind::sgd, "sgd",
                        "torch.optim.SGD"),
             clEnumValN(::memopt::tg::OptimizerKind::adam, "adam",
                        "torch.optim.Adam"),
             clEnumValN(::memopt::tg::OptimizerKind::adamw, "adamw",
                        "torch.optim.AdamW (decoupled weight decay)"))}]>,
    Option<"lr", "lr", "double", "1e-3",
           "Learning rate (torch.optim's default for Adam, AdamW and SGD)">,
    Option<"momentum", "momentum", "double", "0.0", "SGD momentum">,
    Option<"dampening", "dampening", "double", "0.0", "SGD dampening">,
    Option<"nesterov", "nesterov", "bool", "false",
           "SGD with Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "double", "0.0",
           "L2 penalty (SGD, Adam) or decoupled decay (AdamW; torch's "
           "default there is 0.01)">,
    Option<"beta1", "beta1", "double", "0.9", "Adam beta1">,
    Option<"beta2", "beta2", "double", "0.999", "Adam beta2">,
    Option<"eps", "eps", "double", "1e-8", "Adam epsilon">,
    Option<"evalStep", "eval-step", "bool", "false",
           "Also emit @eval_step, the loss in evaluation mode (BatchNorm "
           "with running statistics, no dropout, random masks at their "
           "expectations, no update)">,
    Option<"scaledSeed", "scaled-seed", "bool", "false",
           "Seed the backward with a tg.loss_scale argument (f32 scalar) "
           "instead of 1.0, for fp16 loss scaling (tg-loss-scale): every "
           "gradient of the loss is scaled, of any loss">,
  ];
  let statistics = [
    Statistic<"numGradientOps", "gradient-ops",
              "Ops emitted for the loss gradient and the backward pass">,
    Statistic<"numUpdatedParams", "updated-params",
              "Parameters with a gradient, updated by the optimizer">,
    Statistic<"numFrozenParams", "frozen-params",
              "Parameters the loss does not depend on (not updated)">,
    Statistic<"numRunningStats", "running-stats",
              "BatchNorm running statistics threaded to results">,
    Statistic<"numOptStates", "optimizer-states",
              "Optimizer state tensors added to the signature">,
  ];
}

def FuseElementwise : Pass<"tg-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Group chains of same-shape elementwise ops into "
                "tg.fused_elementwise";
  let description = [{
    Merges an elementwise op (see `tg.fused_elementwise` for the list) into
    its consumer when the consumer is elementwise too, has the same shape
    on every operand (no broadcasting), and is the op's only user: the
    value then never needs memory. Each group of merged ops becomes one
    `tg.fused_elementwise` at the place of its last op, whose body holds
    the ops in their order and whose inputs are the values the group reads
    from outside. Typical groups in a training step: `add` + `relu`
    (residual blocks), `relu_backward` + `add` (gradients meeting at a
    skip connection), `sigmoid` + its loss gradient's `sigmoid_backward`
    chains.

    A single op stays as it is (its library kernel is as good). The CUDA
    backend of `convert-tg-to-emitc` emits one `__global__` kernel per
    fused op; `memopt-compile --target=cuda` runs this pass.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let statistics = [
    Statistic<"numGroups", "fused-groups", "tg.fused_elementwise ops formed">,
    Statistic<"numFusedOps", "fused-ops", "Elementwise ops moved into them">,
  ];
}

#endif // MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_TD
