"""memopt's Python side.

- The API (memopt.api): export a torch.nn.Module in training mode, compile
  its training step with memopt-compile, train with the generated binary
  and a progress bar, load the trained ONNX weights back into the module,
  read the reports, show the memory timeline.
- The reference models and their ONNX export (memopt.models,
  memopt.export), synthetic data sets (memopt.make_dataset,
  memopt.radiographs), the checks against PyTorch (memopt.testing).
"""

from memopt.api import (CompileResult, FitResult, MemoptError, ProgressBar,
                        compile, default_out, export_module, fit,
                        load_weights, read_report, show_timeline, train)

__all__ = ["CompileResult", "FitResult", "MemoptError", "ProgressBar",
           "compile", "default_out", "export_module", "fit", "load_weights",
           "read_report", "show_timeline", "train"]
