// POST /v1/responses (OpenAI's Responses API, stateless): the input items are rendered by the
// model's chat template like a chat completion and answered by Api::single_answer.
// The answer is one assistant message of output_text; a stream sends response.created,
// response.in_progress, response.output_item.added, response.content_part.added,
// response.output_text.delta*, response.output_text.done, response.content_part.done,
// response.output_item.done and response.completed (or response.incomplete when
// max_output_tokens cut it). A reasoning model's thinking is not part of the answer. Nothing is
// stored; the request text and the answer are wiped when the request ends (docs/privacy.md); these
// responses carry no receipt.
#include <ctime>
#include <variant>

#include "server/api.h"
#include "server/answer_format.h"
#include "server/api_error.h"
#include "openai/openai_request.h"
#include "server/openai_response.h"
#include "server/responses_request.h"
#include "server/responses_response.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

namespace {

// The Responses API's body and events for one assistant message of output_text.
class ResponsesFormat final : public AnswerFormat {
 public:
  explicit ResponsesFormat(ResponseHead head) : h_(std::move(head)) {}

  std::string stream_start(const AnswerUsage&) override {
    std::string events = sse_typed_event(
        response_event("response.created", seq_++, {{"response", response_object(h_, "in_progress", nullptr, nullptr)}}));
    events += sse_typed_event(
        response_event("response.in_progress", seq_++, {{"response", response_object(h_, "in_progress", nullptr, nullptr)}}));
    events += sse_typed_event(response_event("response.output_item.added", seq_++,
                                             {{"output_index", 0}, {"item", response_message(h_, "in_progress", nullptr)}}));
    events += sse_typed_event(response_event("response.content_part.added", seq_++, part_fields("part", "")));
    return events;
  }

  std::string stream_delta(std::string_view text) override {
    nlohmann::json e = response_event(
        "response.output_text.delta", seq_++,
        {{"item_id", h_.item_id}, {"output_index", 0}, {"content_index", 0}, {"delta", text}});
    std::string wire = sse_typed_event(e);
    privacy::wipe_json(e);
    return wire;
  }

  std::string stream_tool_call(const chat::ToolCall& call, int index) override {
    const int output_index = index + 1;  // after the message
    const std::string item_id = "fc_" + call.id;
    nlohmann::json events = nlohmann::json::array();
    events.push_back(response_event("response.output_item.added", seq_++,
                                    {{"output_index", output_index}, {"item", response_function_call(call, "in_progress")}}));
    events.back()["item"]["arguments"] = "";
    events.push_back(response_event("response.function_call_arguments.delta", seq_++,
                                    {{"item_id", item_id}, {"output_index", output_index}, {"delta", call.arguments}}));
    events.push_back(response_event("response.function_call_arguments.done", seq_++,
                                    {{"item_id", item_id}, {"output_index", output_index}, {"arguments", call.arguments}}));
    events.push_back(response_event("response.output_item.done", seq_++,
                                    {{"output_index", output_index}, {"item", response_function_call(call, "completed")}}));
    std::string wire;
    for (const auto& e : events) wire += sse_typed_event(e);
    privacy::wipe_json(events);
    return wire;
  }

  std::string stream_end(const std::string& text, std::span<const chat::ToolCall> calls, const runtime::CompletionResult& r,
                         const AnswerUsage& usage) override {
    const bool cut = r.finish == FinishReason::Length;
    const ResponseUsage u = usage_of(usage);
    nlohmann::json events = nlohmann::json::array();
    nlohmann::json done = {{"item_id", h_.item_id}, {"output_index", 0}, {"content_index", 0}, {"text", text}};
    events.push_back(response_event("response.output_text.done", seq_++, std::move(done)));
    events.push_back(response_event("response.content_part.done", seq_++, part_fields("part", text)));
    events.push_back(response_event("response.output_item.done", seq_++,
                                    {{"output_index", 0},
                                     {"item", response_message(h_, cut ? "incomplete" : "completed", &text)}}));
    events.push_back(response_event(cut ? "response.incomplete" : "response.completed", seq_++,
                                    {{"response", response_object(h_, cut ? "incomplete" : "completed", &text, &u, calls)}}));
    std::string wire;
    for (const auto& e : events) wire += sse_typed_event(e);
    privacy::wipe_json(events);
    return wire;
  }

  std::string stream_error(const Error& e) override {
    return sse_typed_event(response_event("error", seq_++, nlohmann::json::parse(error_response(e).body)["error"]));
  }

  nlohmann::json body(const std::string& text, std::span<const chat::ToolCall> calls, const runtime::CompletionResult& r,
                      const AnswerUsage& usage) override {
    const ResponseUsage u = usage_of(usage);
    return response_object(h_, r.finish == FinishReason::Length ? "incomplete" : "completed", &text, &u, calls,
                            /*with_empty_message=*/false);
  }

 private:
  static ResponseUsage usage_of(const AnswerUsage& a) { return {a.input_tokens, a.output_tokens, a.cached_tokens}; }
  nlohmann::json part_fields(const char* key, const std::string& text) const {
    return {{"item_id", h_.item_id},
            {"output_index", 0},
            {"content_index", 0},
            {key, {{"type", "output_text"}, {"text", text}, {"annotations", nlohmann::json::array()}}}};
  }

  ResponseHead h_;
  int seq_ = 0;
};

}  // namespace

asio::awaitable<void> Api::responses(Exchange& ex, std::string identity) {
  ParsedResponseRequest p;
  {
    nlohmann::json body = parse_json_object(ex.request().body);
    try {
      p = parse_response_request(body, ex.request().body);
    } catch (...) {
      privacy::wipe_json(body);
      throw;
    }
    privacy::wipe_json(body);
  }
  if (!registry_->contains(p.request.model)) throw ApiError(codes::kModelNotFound, "the model does not exist", "model");
  auto request = std::make_shared<runtime::CompletionRequest>(std::move(p.request));
  request->cache_identity = std::move(identity);
  request->cache_endpoint = "/v1/responses";
  ResponseHead head;
  head.id = new_id("resp_");
  head.item_id = new_id("msg_");
  head.created_at = static_cast<int64_t>(std::time(nullptr));
  head.model = request->model;
  head.max_output_tokens = request->max_tokens;
  head.temperature = p.temperature;
  head.top_p = p.top_p;
  head.tools = std::move(p.tools);
  head.tool_choice = std::move(p.tool_choice);
  head.parallel_tool_calls = p.parallel_tool_calls;
  head.text_format = std::move(p.text_format);
  ResponsesFormat format(std::move(head));
  co_await single_answer(ex, std::move(request), p.stream, format);
}

}  // namespace a3s::power::server
