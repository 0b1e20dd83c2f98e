// An application that embeds A3S Power (include/a3s/power/embedded.h): it loads a model, streams one
// chat answer to stdout, and prints what it would hand to its own transport. It opens no socket.
//
//   embedded_chat MODEL.gguf [PROMPT] [--max-tokens N] [--tee-development]
//
// --tee-development turns the TEE layer on with the development policy (simulated evidence where the
// machine has no SEV-SNP / TDX hardware) and prints the attestation for a fresh nonce and the
// answer's signed receipt: what a client checks with `a3s-power-verify receipt`.
//
// It is built against include/ and the a3s_embedded library only (examples/CMakeLists.txt), so it
// compiles only if the public header needs no internal type. Exit 0 on success, 1 on an error (its
// code and message on stderr), 2 on a usage error.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "a3s/power/embedded.h"

namespace embedded = a3s::power::embedded;

namespace {

const char* finish_name(embedded::FinishReason r) {
  switch (r) {
    case embedded::FinishReason::kLength:
      return "length";
    case embedded::FinishReason::kToolCalls:
      return "tool_calls";
    case embedded::FinishReason::kStop:
      break;
  }
  return "stop";
}

int usage() {
  std::cerr << "usage: embedded_chat MODEL.gguf [PROMPT] [--max-tokens N] [--tee-development]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path, prompt = "Once upon a time";
  int max_tokens = 32;
  bool tee = false;
  bool have_prompt = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--tee-development") {
      tee = true;
    } else if (arg == "--max-tokens" && i + 1 < argc) {
      max_tokens = std::atoi(argv[++i]);
    } else if (!arg.empty() && arg[0] == '-') {
      return usage();
    } else if (model_path.empty()) {
      model_path = arg;
    } else if (!have_prompt) {
      prompt = arg;
      have_prompt = true;
    } else {
      return usage();
    }
  }
  if (model_path.empty() || max_tokens < 1) return usage();

  try {
    embedded::RuntimeOptions options;
    embedded::ModelOptions model;
    model.name = "model";
    model.path = model_path;
    options.models.push_back(model);
    if (tee) {
      options.tee.enabled = true;
      options.tee.policy = a3s::power::TeePolicy::kDevelopment;
    }
    embedded::Runtime runtime(options);  // loads the model; no listener, no socket

    embedded::ChatRequest request;
    embedded::Message user;
    user.role = "user";
    user.content = prompt;
    request.messages.push_back(user);
    request.sampling.temperature = 0;  // greedy: the same answer every run
    request.max_tokens = max_tokens;

    embedded::RequestControl control;
    control.on_delta = [](const embedded::Delta& d) {
      std::cout << d.content << std::flush;  // each piece as it is generated
      return true;                           // false would stop the generation
    };
    const embedded::Result result = runtime.chat(request, control);
    std::cout << "\n";
    std::cerr << "finish: " << finish_name(result.finish_reason) << ", prompt tokens: " << result.usage.prompt_tokens
              << ", completion tokens: " << result.usage.completion_tokens << "\n";

    if (tee) {
      // What a client needs to check the answer: the attestation of this runtime for its nonce, the
      // answer and its receipt, carried over the application's own channel.
      embedded::Nonce nonce{};
      std::random_device rd;
      for (auto& b : nonce) b = static_cast<uint8_t>(rd());
      const embedded::TeeInfo info = runtime.tee();
      std::cerr << "tee: " << info.tee_type << " (" << info.provider << "), receipt key " << info.receipt_key_id << "\n";
      std::cout << "attestation: " << runtime.attestation(nonce, "model") << "\n";
      std::cout << "receipt: " << result.receipt_json << "\n";
    }
    return 0;
  } catch (const a3s::power::Error& e) {
    std::cerr << "error: " << e.code() << ": " << e.what() << "\n";
    return 1;
  }
}
