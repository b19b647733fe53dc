// A remote server over Streamable HTTP. URL elicitations may only send the user to GitHub's own
// hosts; sampling is refused outright, since this server has no business spending model budget.
import { definePolicy } from "../mod.ts";

export default definePolicy({
  server: "github",
  transport: { url: "https://api.githubcopilot.com/mcp/" },
  era: "auto",
  sampling: false,
  elicitation: { modes: ["url"], allowHosts: ["github.com", "*.github.com"], denyHosts: ["gist.github.com"] },
  callTimeout: "30s",
});
