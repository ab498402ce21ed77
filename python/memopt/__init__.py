"""memopt Python side: builds the reference PyTorch models and exports them to
ONNX (training mode, opset 17) so the C++ compiler has fixed, reproducible inputs.
"""
