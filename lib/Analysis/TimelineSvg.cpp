//===- TimelineSvg.cpp - The memory timeline as an SVG image --------------===//
//
// One stacked step chart: op i of the schedule spans [i, i + 1) on the x
// axis, each category is a band whose outline steps with H/V path commands
// (a few bytes per op, so that a step of thousands of ops stays small).
// The root element carries the numbers the image shows as data-*
// attributes, for tests and scripts.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/TimelineSvg.h"

#include "memopt/Analysis/DeviceProfile.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace memopt;

namespace {

constexpr int kWidth = 1120, kHeight = 600;
constexpr int kLeft = 90, kRight = 270, kTop = 70, kBottom = 64;
constexpr int kPlotWidth = kWidth - kLeft - kRight;
constexpr int kPlotHeight = kHeight - kTop - kBottom;

/// A coordinate or tick value in the shortest form ("12", "0.5", "1e+03").
std::string num(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

/// Fill colours by category (MemoryCategory order), then of the phases.
constexpr const char *kCategoryColors[kNumMemoryCategories] = {
    "#4e79a7", "#f28e2b", "#9c9c9c", "#59a14f",
    "#e15759", "#76b7b2", "#edc948", "#b07aa1"};
/// The line of the offloaded values' host copies.
constexpr const char *kHostColor = "#8c564b";

/// The categories that only a step with offloads has.
bool offloadCategory(unsigned category) {
  return category == unsigned(MemoryCategory::Offloading) ||
         category == unsigned(MemoryCategory::Prefetched);
}
constexpr const char *kPhaseColors[] = {"#eef4fb", "#fdf0e4", "#efefef"};

std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// The unit of the y axis: the largest binary unit that leaves at least 1.
std::pair<const char *, double> axisUnit(double maxBytes) {
  if (maxBytes >= double(1ull << 30))
    return {"GiB", double(1ull << 30)};
  if (maxBytes >= double(1ull << 20))
    return {"MiB", double(1ull << 20)};
  if (maxBytes >= 1024)
    return {"KiB", 1024};
  return {"B", 1};
}

/// A round tick step (1, 2 or 5 times a power of ten) for about `ticks`
/// ticks over `range`.
double niceStep(double range, double ticks) {
  double raw = range / ticks;
  double power = std::pow(10, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0})
    if (raw <= factor * power)
      return factor * power;
  return 10 * power;
}

class Chart {
public:
  Chart(raw_ostream &os, const MemoryTimeline &timeline,
        const TimelineLabels &labels)
      : os(os), timeline(timeline), labels(labels),
        count(std::max<size_t>(timeline.points().size(), 1)) {
    // Host bytes are not device memory, but their line must fit too.
    double top = static_cast<double>(
        std::max(timeline.peakBytes(), timeline.hostPeakBytes()));
    if (labels.plannedPeakBytes)
      top = std::max(top, double(*labels.plannedPeakBytes));
    // The budget and the device memory are lines when they are near the
    // peak; far above it they would squash the chart, and the subtitle
    // states them instead.
    double scaleTop = top;
    showBudget = labels.budgetBytes && double(*labels.budgetBytes) <= 1.5 * top;
    if (showBudget)
      scaleTop = std::max(scaleTop, double(*labels.budgetBytes));
    showDeviceMemory = labels.deviceMemoryBytes &&
                       double(labels.deviceMemoryBytes) <= 1.5 * top;
    if (showDeviceMemory)
      scaleTop = std::max(scaleTop, double(labels.deviceMemoryBytes));
    std::tie(unitName, unitBytes) = axisUnit(scaleTop);
    step = niceStep(std::max(scaleTop * 1.15, 1.0) / unitBytes, 6);
    yMax = std::ceil(scaleTop * 1.15 / unitBytes / step) * step * unitBytes;
  }

  void write() {
    header();
    phases();
    bands();
    hostLine();
    axes();
    lines();
    peak();
    legend();
    os << "</svg>\n";
  }

private:
  double x(double index) const {
    return kLeft + double(kPlotWidth) * index / double(count);
  }
  double y(double bytes) const {
    return kTop + double(kPlotHeight) * (1 - bytes / yMax);
  }

  void header() {
    const MemoryTimeline::Point *at =
        timeline.points().empty() ? nullptr
                                  : &timeline.points()[timeline.peakIndex()];
    os << llvm::formatv(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
        "height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" "
        "font-size=\"12\" data-peak-bytes=\"{2}\" "
        "data-activation-peak-bytes=\"{3}\" data-peak-op=\"{4}\" "
        "data-ops=\"{5}\"{6}>\n",
        kWidth, kHeight, timeline.peakBytes(), timeline.transientPeakBytes(),
        timeline.peakIndex(), timeline.points().size(),
        timeline.offloads()
            ? llvm::formatv(" data-host-peak-bytes=\"{0}\"",
                            timeline.hostPeakBytes())
                  .str()
            : "");
    os << "<title>memory timeline of " << escape(labels.model) << " on "
       << escape(labels.device) << "</title>\n";
    os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    os << llvm::formatv("<text x=\"{0}\" y=\"28\" font-size=\"18\" "
                        "font-weight=\"bold\">Memory of one training step: "
                        "{1}</text>\n",
                        kLeft, escape(labels.model));
    os << llvm::formatv(
        "<text x=\"{0}\" y=\"50\" fill=\"#444\">device {1} | {2} ops | peak "
        "{3}{4}{5}</text>\n",
        kLeft, escape(labels.device), timeline.points().size(),
        formatBytes(timeline.peakBytes()),
        at ? llvm::formatv(" at op {0}", timeline.peakIndex()).str() : "",
        labels.budgetBytes ? " | budget " + formatBytes(*labels.budgetBytes)
                           : "");
  }

  /// Shaded runs of forward, backward and optimizer ops.
  void phases() {
    ArrayRef<MemoryTimeline::Point> points = timeline.points();
    for (size_t begin = 0; begin < points.size();) {
      size_t end = begin;
      while (end < points.size() && points[end].phase == points[begin].phase)
        ++end;
      unsigned phase = static_cast<unsigned>(points[begin].phase);
      os << llvm::formatv("<rect class=\"phase\" x=\"{0:f1}\" y=\"{1}\" "
                          "width=\"{2:f1}\" height=\"{3}\" fill=\"{4}\"/>\n",
                          x(begin), kTop, x(end) - x(begin), kPlotHeight,
                          kPhaseColors[phase]);
      if (x(end) - x(begin) >= 60)
        os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1}\" fill=\"#777\" "
                            "text-anchor=\"middle\">{2}</text>\n",
                            (x(begin) + x(end)) / 2, kTop + 16,
                            stringifyStepPhase(points[begin].phase));
      begin = end;
    }
  }

  /// One band per category, stacked in MemoryCategory order.
  void bands() {
    ArrayRef<MemoryTimeline::Point> points = timeline.points();
    std::vector<uint64_t> lower(points.size(), 0);
    for (unsigned c = 0; c < kNumMemoryCategories; ++c) {
      std::vector<uint64_t> upper(lower);
      bool any = false;
      for (size_t i = 0; i < points.size(); ++i) {
        upper[i] += points[i].bytes[c];
        any |= points[i].bytes[c] != 0;
      }
      if (any) {
        os << "<path class=\"band\" data-category=\""
           << memoryCategoryName(MemoryCategory(c)) << "\" fill=\""
           << kCategoryColors[c] << "\" d=\"";
        outline(upper, lower);
        os << "\"/>\n";
      }
      lower = std::move(upper);
    }
  }

  /// The host copies of offloaded values: a line over the device bands
  /// (they are held in the pinned host pool, beside the device's memory).
  void hostLine() {
    ArrayRef<MemoryTimeline::Point> points = timeline.points();
    if (!timeline.offloads() || points.empty())
      return;
    os << "<path class=\"host\" data-category=\"" << kOffloadedHostName
       << "\" fill=\"none\" stroke=\"" << kHostColor
       << "\" stroke-width=\"2\" d=\"";
    os << llvm::format("M%.1f %.1f", x(0), y(points[0].hostBytes));
    for (size_t i = 0; i < points.size(); ++i)
      if (i + 1 == points.size() ||
          points[i + 1].hostBytes != points[i].hostBytes) {
        os << llvm::format("H%.1f", x(i + 1));
        if (i + 1 < points.size())
          os << llvm::format("V%.1f", y(points[i + 1].hostBytes));
      }
    os << "\"/>\n";
  }

  /// The path along `upper` left to right and back along `lower`.
  void outline(ArrayRef<uint64_t> upper, ArrayRef<uint64_t> lower) {
    size_t n = upper.size();
    os << llvm::format("M%.1f %.1f", x(0), y(upper[0]));
    for (size_t i = 0; i < n; ++i)
      if (i + 1 == n || upper[i + 1] != upper[i]) {
        os << llvm::format("H%.1f", x(i + 1));
        if (i + 1 < n)
          os << llvm::format("V%.1f", y(upper[i + 1]));
      }
    os << llvm::format("V%.1f", y(lower[n - 1]));
    for (size_t i = n; i-- > 0;)
      if (i == 0 || lower[i - 1] != lower[i]) {
        os << llvm::format("H%.1f", x(i));
        if (i > 0)
          os << llvm::format("V%.1f", y(lower[i - 1]));
      }
    os << "Z";
  }

  void axes() {
    int bottom = kTop + kPlotHeight;
    os << llvm::formatv("<g stroke=\"#333\"><line x1=\"{0}\" y1=\"{1}\" "
                        "x2=\"{0}\" y2=\"{2}\"/><line x1=\"{0}\" y1=\"{2}\" "
                        "x2=\"{3}\" y2=\"{2}\"/></g>\n",
                        kLeft, kTop, bottom, kLeft + kPlotWidth);
    for (double v = 0; v <= yMax / unitBytes + step / 2; v += step) {
      double at = y(v * unitBytes);
      os << llvm::formatv("<line x1=\"{0}\" y1=\"{1:f1}\" x2=\"{2}\" "
                          "y2=\"{1:f1}\" stroke=\"#ddd\"/>\n",
                          kLeft, at, kLeft + kPlotWidth);
      os << llvm::formatv("<text class=\"ytick\" x=\"{0}\" y=\"{1:f1}\" "
                          "text-anchor=\"end\">{2}</text>\n",
                          kLeft - 6, at + 4, num(v));
    }
    double xStep = std::max(1.0, niceStep(double(count), 10));
    for (double i = 0; i <= double(count); i += xStep)
      os << llvm::formatv("<text class=\"xtick\" x=\"{0:f1}\" y=\"{1}\" "
                          "text-anchor=\"middle\">{2}</text>\n",
                          x(i), bottom + 16, num(i));
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">op "
                        "index in schedule order</text>\n",
                        kLeft + kPlotWidth / 2, bottom + 40);
    os << llvm::formatv("<text x=\"24\" y=\"{0}\" text-anchor=\"middle\" "
                        "transform=\"rotate(-90 24 {0})\">live memory "
                        "({1})</text>\n",
                        kTop + kPlotHeight / 2, unitName);
  }

  void hline(const char *cls, uint64_t bytes, const char *color,
             const std::string &text) {
    double at = y(double(bytes));
    os << llvm::formatv("<line class=\"{0}\" x1=\"{1}\" y1=\"{2:f1}\" "
                        "x2=\"{3}\" y2=\"{2:f1}\" stroke=\"{4}\" "
                        "stroke-dasharray=\"6 4\"/>\n",
                        cls, kLeft, at, kLeft + kPlotWidth, color);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:f1}\" fill=\"{2}\" "
                        "text-anchor=\"end\">{3}</text>\n",
                        kLeft + kPlotWidth - 4, at - 4, color, escape(text));
  }

  void lines() {
    if (labels.plannedPeakBytes)
      hline("planned", *labels.plannedPeakBytes, "#333",
            "allocated with the static plan: " +
                formatBytes(*labels.plannedPeakBytes));
    if (showBudget)
      hline("budget", *labels.budgetBytes, "#c00",
            "budget: " + formatBytes(*labels.budgetBytes));
    if (showDeviceMemory)
      hline("device-memory", labels.deviceMemoryBytes, "#06c",
            "device memory: " + formatBytes(labels.deviceMemoryBytes));
  }

  void peak() {
    if (timeline.points().empty())
      return;
    unsigned index = timeline.peakIndex();
    const MemoryTimeline::Point &at = timeline.points()[index];
    double px = x(index + 0.5), py = y(double(timeline.peakBytes()));
    os << llvm::formatv("<line class=\"peak\" x1=\"{0:f1}\" y1=\"{1:f1}\" "
                        "x2=\"{0:f1}\" y2=\"{2:f1}\" stroke=\"black\" "
                        "stroke-dasharray=\"3 3\"/>\n",
                        px, py - 12, kTop + kPlotHeight);
    os << llvm::formatv("<circle cx=\"{0:f1}\" cy=\"{1:f1}\" r=\"4\"/>\n", px,
                        py);
    // The label goes where there is room: right of the peak unless the
    // peak is in the right third.
    bool right = px < kLeft + kPlotWidth * 2.0 / 3.0;
    // Long ONNX scopes keep their end, which names the layer.
    std::string node = at.node;
    if (node.size() > 48)
      node = "..." + node.substr(node.size() - 45);
    double tx = right ? px + 8 : px - 8;
    double ty = std::max(kTop + 40.0, py - 44);
    os << llvm::formatv("<text class=\"peak-label\" x=\"{0:f1}\" y=\"{1:f1}\" "
                        "text-anchor=\"{2}\" font-weight=\"bold\">peak {3} "
                        "({4} bytes)</text>\n",
                        tx, ty, right ? "start" : "end",
                        formatBytes(timeline.peakBytes()),
                        timeline.peakBytes());
    os << llvm::formatv("<text class=\"peak-op\" x=\"{0:f1}\" y=\"{1:f1}\" "
                        "text-anchor=\"{2}\">op {3}: {4}{5}</text>\n",
                        tx, ty + 15, right ? "start" : "end", index,
                        at.opName, node.empty() ? "" : " " + escape(node));
    os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" text-anchor=\"{2}\" "
                        "fill=\"#444\">temporaries {3}</text>\n",
                        tx, ty + 30, right ? "start" : "end",
                        formatBytes(timeline.transientPeakBytes()));
  }

  void legend() {
    int lx = kLeft + kPlotWidth + 24, ly = kTop + 4;
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" font-weight=\"bold\">at "
                        "the peak</text>\n",
                        lx, ly);
    const MemoryTimeline::Point *at =
        timeline.points().empty() ? nullptr
                                  : &timeline.points()[timeline.peakIndex()];
    if (timeline.offloads()) {
      ly += 22;
      os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" "
                          "y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/>\n",
                          lx, ly - 4, lx + 14, kHostColor);
      os << llvm::formatv(
          "<text class=\"legend\" x=\"{0}\" y=\"{1}\">{2}: {3}</text>\n",
          lx + 20, ly, kOffloadedHostName,
          formatBytes(at ? at->hostBytes : 0));
    }
    for (unsigned c = kNumMemoryCategories; c-- > 0;) {
      if (offloadCategory(c) && !timeline.offloads())
        continue;
      ly += 22;
      os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"14\" "
                          "height=\"14\" fill=\"{2}\"/>\n",
                          lx, ly - 11, kCategoryColors[c]);
      os << llvm::formatv(
          "<text class=\"legend\" x=\"{0}\" y=\"{1}\">{2}: {3}</text>\n",
          lx + 20, ly, memoryCategoryName(MemoryCategory(c)),
          formatBytes(at ? at->bytes[c] : 0));
    }
    ly += 34;
    for (StepPhase phase :
         {StepPhase::Forward, StepPhase::Backward, StepPhase::Optimizer}) {
      os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"14\" "
                          "height=\"14\" fill=\"{2}\" stroke=\"#ccc\"/>\n",
                          lx, ly - 11,
                          kPhaseColors[static_cast<unsigned>(phase)]);
      os << llvm::formatv("<text x=\"{0}\" y=\"{1}\">{2} ops</text>\n",
                          lx + 20, ly, stringifyStepPhase(phase));
      ly += 22;
    }
  }

  raw_ostream &os;
  const MemoryTimeline &timeline;
  const TimelineLabels &labels;
  size_t count;
  bool showBudget = false;
  bool showDeviceMemory = false;
  const char *unitName = "B";
  double unitBytes = 1, step = 1, yMax = 1;
};

} // namespace

void memopt::writeTimelineSvg(raw_ostream &os, const MemoryTimeline &timeline,
                              const TimelineLabels &labels) {
  Chart(os, timeline, labels).write();
}
