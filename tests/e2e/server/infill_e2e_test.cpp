// End-to-end: `suffix` on /v1/completions (fill in the middle). stories260K with three of its tokens
// declared as the FIM tokens (tokenizer.ggml.fim_{pre,suf,mid}_token_id) answers what the engine
// generates from [BOS] <fim_pre> prefix <fim_suf> suffix <fim_mid>, streamed or not; the model
// without FIM tokens answers 400 naming suffix.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/gguf_builder.h"
#include "support/http_client.h"
#include "support/server_process.h"
#include "support/sse_chunks.h"
#include "support/temp_dir.h"
#include "support/test_data.h"
#include "a3s/power/engine.h"
#include "engine/generator.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::testing {
namespace infill_e2e {  // named: the suite's files are built as one unit

using nlohmann::json;

constexpr uint32_t kPre = 400, kSuf = 401, kMid = 402;

TEST(InfillE2E, SuffixFillsInTheMiddleWithTheModelsFimTokens) {
  TempDir dir;
  const std::string path = dir.path() + "/stories-fim.gguf";
  write_model_copy(stories_model(),
                   {{"tokenizer.ggml.fim_pre_token_id", u32_value(kPre)},
                    {"tokenizer.ggml.fim_suf_token_id", u32_value(kSuf)},
                    {"tokenizer.ggml.fim_mid_token_id", u32_value(kMid)}},
                   {}, {}, path);
  // What the engine generates from the infill prompt.
  auto model = Model::load(path, {});
  const Tokenizer& tok = model->tokenizer();
  ASSERT_EQ(tok.fim_prefix(), static_cast<Token>(kPre));
  ASSERT_EQ(tok.fim_middle(), static_cast<Token>(kMid));
  GenerationRequest req;
  if (tok.add_bos()) req.prompt.push_back(tok.bos());
  req.prompt.push_back(kPre);
  for (Token t : tok.encode("Once upon a time", false, false)) req.prompt.push_back(t);
  req.prompt.push_back(kSuf);
  for (Token t : tok.encode(" The end.", false, false)) req.prompt.push_back(t);
  req.prompt.push_back(kMid);
  req.sampling.temperature = 0;
  req.max_tokens = 12;
  Context ctx(model, {});
  const GenerationResult expected = generate(ctx, req);
  ASSERT_FALSE(expected.text.empty());

  ServerProcess s({"--model", "fim=" + path, "--model", "plain=" + stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  json body = {{"model", "fim"}, {"prompt", "Once upon a time"}, {"suffix", " The end."}, {"temperature", 0},
               {"max_tokens", 12}};
  const HttpResult r = http("POST", s.url("/v1/completions"), body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["choices"][0]["text"], expected.text);
  EXPECT_EQ(j["usage"]["prompt_tokens"], req.prompt.size());
  body["stream"] = true;
  std::string streamed;
  for (const json& c : sse_json_chunks(http("POST", s.url("/v1/completions"), body.dump()).body)) {
    if (!c["choices"].empty()) streamed += c["choices"][0]["text"].get<std::string>();
  }
  EXPECT_EQ(streamed, expected.text);

  // Without FIM tokens: a 400 naming suffix; the suffix's text is not echoed.
  body["model"] = "plain";
  body["stream"] = false;
  body["suffix"] = "CANARY-fim-77";
  const HttpResult no = http("POST", s.url("/v1/completions"), body.dump());
  EXPECT_EQ(no.status, 400) << no.body;
  EXPECT_EQ(json::parse(no.body)["error"]["param"], "suffix");
  EXPECT_EQ(no.body.find("CANARY"), std::string::npos);
  // suffix is a completions field: chat names it.
  const HttpResult chat = http("POST", s.url("/v1/chat/completions"),
                               json{{"model", "fim"}, {"messages", {{{"role", "user"}, {"content", "x"}}}}, {"suffix", "y"}}
                                   .dump());
  EXPECT_EQ(chat.status, 400);
  EXPECT_EQ(json::parse(chat.body)["error"]["param"], "suffix");
}

}  // namespace infill_e2e
}  // namespace a3s::power::testing
