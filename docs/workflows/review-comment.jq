# The pull-request comment for agent's `result` event (docs/workflows/agent-review.yml):
#   jq -r -f review-comment.jq result.json > comment.md
def cost:
  if .total_cost_usd == null then "unknown"
  elif .total_cost_usd < 0.0001 then "< $0.0001"
  else "$\((.total_cost_usd * 10000 | round) / 10000)" end;
def where: "`\(.file)\(if .line then ":\(.line)" else "" end)`";
(if .subtype == "success" and .structured_output != null then
  .structured_output as $v
  | "### agent review: \($v.verdict | gsub("_"; " "))\n\n\($v.summary)\n"
    + ([$v.findings[] | "\n- **\(.severity)** \(where): \(.message)"] | join(""))
else
  "### agent review did not finish (\(.subtype))\n\n\(.error // "no error message")"
end)
+ "\n\n<sub>\(.num_turns) requests · cost \(cost) · session \(.session_id)</sub>"
