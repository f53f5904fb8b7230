-- "Show diff": the original function and a candidate side by side in a new tab, in diff mode.
local M = {}

local function scratch(name, text, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, "\n", { plain = true }))
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

--- Handler of the server's `perfalign/showDiff` notification {uri, original, candidate, title, evidence, plot}.
--- The evidence (how the time grows with the size, beside what the compiler alone gives) goes on the
--- original's window bar and in the message; Neovim shows no SVG, so the plot is left to other clients.
function M.show(params)
  local path = vim.uri_to_fname(params.uri)
  local filetype = vim.filetype.match({ filename = path }) or "c"
  local base = vim.fs.basename(path)
  local n = (M.count or 0) + 1
  M.count = n
  vim.cmd.tabnew()
  local left = scratch(("perfalign://%d/original/%s"):format(n, base), params.original, filetype)
  vim.api.nvim_win_set_buf(0, left)
  local evidence = type(params.evidence) == "string" and params.evidence or ""
  vim.wo.winbar = evidence ~= "" and ("original · " .. evidence:gsub("%%", "%%%%")) or "original"
  vim.cmd.diffthis()
  vim.cmd("rightbelow vsplit")
  local right = scratch(("perfalign://%d/candidate/%s"):format(n, base), params.candidate, filetype)
  vim.api.nvim_win_set_buf(0, right)
  vim.wo.winbar = "candidate: " .. params.title:gsub("%%", "%%%%")
  vim.cmd.diffthis()
  vim.t.perfalign_diff_title = params.title
  vim.t.perfalign_diff_evidence = evidence
  local said = evidence ~= "" and ("; " .. evidence) or ""
  vim.notify("perfalign: " .. params.title .. said .. " (original left, candidate right; :tabclose to leave)",
    vim.log.levels.INFO)
end

return M
