//===- TGEnums.td - Enumerations of the tg dialect ---------*- tablegen -*-===//

#ifndef MEMOPT_DIALECT_TG_IR_TGENUMS_TD
#define MEMOPT_DIALECT_TG_IR_TGENUMS_TD

include "memopt/Dialect/TG/IR/TGDialect.td"
include "mlir/IR/EnumAttr.td"

def TG_ResizeMode : I32EnumAttr<"ResizeMode", "interpolation of tg.resize", [
    I32EnumAttrCase<"nearest", 0>,
    I32EnumAttrCase<"bilinear", 1>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::memopt::tg";
}
def TG_ResizeModeAttr : EnumAttr<TG_Dialect, TG_ResizeMode, "resize_mode">;

// ONNX coordinate_transformation_mode values that PyTorch exports.
def TG_CoordinateMode : I32EnumAttr<"CoordinateMode",
    "how an output coordinate maps back to an input coordinate", [
    I32EnumAttrCase<"half_pixel", 0>,
    I32EnumAttrCase<"pytorch_half_pixel", 1>,
    I32EnumAttrCase<"align_corners", 2>,
    I32EnumAttrCase<"asymmetric", 3>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::memopt::tg";
}
def TG_CoordinateModeAttr
    : EnumAttr<TG_Dialect, TG_CoordinateMode, "coordinate_mode">;

def TG_NearestMode : I32EnumAttr<"NearestMode",
    "rounding of the source coordinate in nearest resize", [
    I32EnumAttrCase<"round_prefer_floor", 0>,
    I32EnumAttrCase<"round_prefer_ceil", 1>,
    I32EnumAttrCase<"floor", 2>,
    I32EnumAttrCase<"ceil", 3>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::memopt::tg";
}
def TG_NearestModeAttr : EnumAttr<TG_Dialect, TG_NearestMode, "nearest_mode">;

def TG_PadMode : I32EnumAttr<"PadMode", "how tg.pad fills the border", [
    I32EnumAttrCase<"constant", 0>,
    I32EnumAttrCase<"reflect", 1>,
    I32EnumAttrCase<"edge", 2>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::memopt::tg";
}
def TG_PadModeAttr : EnumAttr<TG_Dialect, TG_PadMode, "pad_mode">;

// ONNX Less, LessOrEqual, Greater, GreaterOrEqual, Equal.
def TG_ComparisonPredicate : I32EnumAttr<"ComparisonPredicate",
    "the relation that tg.compare tests", [
    I32EnumAttrCase<"lt", 0>,
    I32EnumAttrCase<"le", 1>,
    I32EnumAttrCase<"gt", 2>,
    I32EnumAttrCase<"ge", 3>,
    I32EnumAttrCase<"eq", 4>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::memopt::tg";
}
def TG_ComparisonPredicateAttr
    : EnumAttr<TG_Dialect, TG_ComparisonPredicate, "comparison">;

#endif // MEMOPT_DIALECT_TG_IR_TGENUMS_TD
