//===- ShapeInferenceProcess.cpp - libonnx shape inference, contained -----===//
//
// libonnx 1.12's shape-inference functions trust the ranks a model declares
// and read past short shapes on malformed input (the importer fuzzer found
// several). A model file is untrusted input, so its shape inference runs in
// a forked child: a fault there becomes an error naming the node that
// caused it, never a crash of the compiler. The child sends back only the
// shapes it inferred (value_info, inputs and outputs of the graph and of
// every sub-graph); the weights stay where they are.
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ShapeInferenceProcess.h"

#include "strata/Import/ONNXChecks.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace strata::importer {

namespace {

std::atomic<uint64_t> faultCount{0}, failureCount{0};

/// Copies what shape inference writes into a graph (its value_info, inputs
/// and outputs) and, node by node, the same of every graph attribute into
/// `shapes`; nodes without sub-graphs become empty placeholders so that
/// indices line up.
void extractShapes(const onnx::GraphProto &graph, onnx::GraphProto &shapes) {
  *shapes.mutable_input() = graph.input();
  *shapes.mutable_output() = graph.output();
  *shapes.mutable_value_info() = graph.value_info();
  for (const onnx::NodeProto &node : graph.node()) {
    onnx::NodeProto *slot = shapes.add_node();
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (!attr.has_g() && attr.graphs_size() == 0)
        continue;
      onnx::AttributeProto *copy = slot->add_attribute();
      copy->set_name(attr.name());
      if (attr.has_g())
        extractShapes(attr.g(), *copy->mutable_g());
      for (const onnx::GraphProto &g : attr.graphs())
        extractShapes(g, *copy->add_graphs());
    }
  }
}

/// The inverse of extractShapes; false when `shapes` does not have the
/// structure of `graph`.
bool mergeShapes(onnx::GraphProto &&shapes, onnx::GraphProto &graph) {
  if (shapes.node_size() != graph.node_size() ||
      shapes.input_size() != graph.input_size() ||
      shapes.output_size() != graph.output_size())
    return false;
  graph.mutable_input()->Swap(shapes.mutable_input());
  graph.mutable_output()->Swap(shapes.mutable_output());
  graph.mutable_value_info()->Swap(shapes.mutable_value_info());
  for (int i = 0; i < graph.node_size(); ++i) {
    onnx::NodeProto &node = *graph.mutable_node(i);
    onnx::NodeProto &slot = *shapes.mutable_node(i);
    int next = 0;
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (!attr.has_g() && attr.graphs_size() == 0)
        continue;
      if (next >= slot.attribute_size())
        return false;
      onnx::AttributeProto &copy = *slot.mutable_attribute(next++);
      if (copy.name() != attr.name() || copy.has_g() != attr.has_g() ||
          copy.graphs_size() != attr.graphs_size())
        return false;
      if (attr.has_g() &&
          !mergeShapes(std::move(*copy.mutable_g()), *attr.mutable_g()))
        return false;
      for (int j = 0; j < attr.graphs_size(); ++j)
        if (!mergeShapes(std::move(*copy.mutable_graphs(j)),
                         *attr.mutable_graphs(j)))
          return false;
    }
    if (next != slot.attribute_size())
      return false;
  }
  return true;
}

bool writeAll(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

/// How one child ended.
struct ChildResult {
  enum Kind { Finished, Crashed, TimedOut, Failed } kind = Failed;
  /// Finished: the child's message ('O' + shapes or 'E' + error).
  /// Crashed: the signal's name. Failed: what went wrong.
  std::string payload;
};

/// Runs shape inference in a forked child on the model's first `prefix`
/// nodes (all when negative) and collects its answer.
ChildResult runChild(onnx::ModelProto &model, int prefix,
                     std::chrono::seconds timeout) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return {ChildResult::Failed,
            std::string("cannot create a pipe: ") + std::strerror(errno)};
  // Buffered output would otherwise be written twice.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) {
    int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return {ChildResult::Failed,
            std::string("cannot fork: ") + std::strerror(error)};
  }
  if (pid == 0) {
    // The child: a fault ends it with its signal, for the parent to report
    // (no crash handler of the parent's, a sanitizer's or a fuzzer's, may
    // report it or write files as if the parent had crashed).
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP})
      std::signal(sig, SIG_DFL);
    // A parent that stopped reading makes the write fail, not a signal
    // that would read as a fault of libonnx.
    std::signal(SIGPIPE, SIG_IGN);
    ::close(fds[0]);
    if (prefix >= 0 && prefix < model.graph().node_size())
      model.mutable_graph()->mutable_node()->DeleteSubrange(
          prefix, model.graph().node_size() - prefix);
    std::string message;
    if (std::optional<std::string> error = runONNXShapeInference(model)) {
      message = "E" + *error;
    } else {
      onnx::GraphProto shapes;
      extractShapes(model.graph(), shapes);
      message = "O";
      if (!shapes.AppendToString(&message))
        message = "Ecannot serialize the inferred shapes";
    }
    ::_exit(writeAll(fds[1], message) ? 0 : 1);
  }

  ::close(fds[1]);
  std::string bytes;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timedOut = false;
  char buffer[1 << 16];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0) {
      timedOut = ready == 0;
      break;
    }
    ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timedOut)
    ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return {ChildResult::Failed, "lost the shape-inference process"};
  if (timedOut)
    return {ChildResult::TimedOut, {}};
  if (WIFSIGNALED(status)) {
    const char *name = ::sigabbrev_np(WTERMSIG(status));
    return {ChildResult::Crashed,
            name ? std::string("SIG") + name
                 : "signal " + std::to_string(WTERMSIG(status))};
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.empty()) {
    ++failureCount;
    return {ChildResult::Failed,
            "the shape-inference process exited with status " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1)};
  }
  return {ChildResult::Finished, std::move(bytes)};
}

/// The first node of the graph whose shape inference faults: the shortest
/// crashing prefix, found by bisection (each step one child).
int findFaultingNode(onnx::ModelProto &model, std::chrono::seconds timeout) {
  int good = 0, bad = model.graph().node_size();
  while (bad - good > 1) {
    int mid = good + (bad - good) / 2;
    if (runChild(model, mid, timeout).kind == ChildResult::Crashed)
      bad = mid;
    else
      good = mid;
  }
  return bad - 1;
}

} // namespace

std::optional<std::string>
runONNXShapeInferenceContained(onnx::ModelProto &model,
                               std::chrono::seconds timeout) {
  ChildResult result = runChild(model, /*prefix=*/-1, timeout);
  switch (result.kind) {
  case ChildResult::Failed:
    return result.payload;
  case ChildResult::TimedOut:
    return "libonnx's shape inference did not finish within " +
           std::to_string(timeout.count()) + " s";
  case ChildResult::Crashed: {
    ++faultCount;
    std::string where = "the model";
    int node = findFaultingNode(model, timeout);
    if (node >= 0 && node < model.graph().node_size()) {
      const onnx::NodeProto &faulting = model.graph().node(node);
      where = "node '" + faulting.name() + "' (" + faulting.op_type() + ")";
    }
    return "libonnx's shape inference faulted (" + result.payload + ") on " +
           where +
           ": its declared shapes or attributes are inconsistent in a way "
           "libonnx does not check";
  }
  case ChildResult::Finished:
    break;
  }
  if (result.payload[0] == 'E')
    return result.payload.substr(1);
  onnx::GraphProto shapes;
  if (!shapes.ParseFromArray(result.payload.data() + 1,
                             static_cast<int>(result.payload.size() - 1)) ||
      !mergeShapes(std::move(shapes), *model.mutable_graph())) {
    ++failureCount;
    return std::string("the shape-inference process answered with shapes "
                       "that do not fit the model");
  }
  return std::nullopt;
}

ShapeInferenceProcessCounts getShapeInferenceProcessCounts() {
  return {faultCount.load(), failureCount.load()};
}

} // namespace strata::importer
