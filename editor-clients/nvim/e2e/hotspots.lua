-- Drives :PerfalignHotspots in a real Neovim for tests/e2e/test_nvim.py:
--   nvim --headless --clean -c "luafile editor-clients/nvim/e2e/hotspots.lua"
-- Reads $PERFALIGN_E2E_DIR/spec.json, opens a C file of a workspace with a kept profile, waits for the
-- hot-function diagnostics, fills the quickfix list with :PerfalignHotspots, jumps to the first entry,
-- writes result.json there and quits.
local dir = os.getenv("PERFALIGN_E2E_DIR")
local f = assert(io.open(dir .. "/spec.json")); local spec = vim.json.decode(f:read("*a")); f:close()
local result = { ok = false }
local function finish()
  local out = assert(io.open(dir .. "/result.json", "w")); out:write(vim.json.encode(result)); out:close()
  vim.cmd("qa!")
end
local ok, err = pcall(function()
  vim.opt.rtp:prepend(spec.plugin)
  local perfalign = require("perfalign")
  assert(perfalign.setup(spec.setup), "setup failed")
  vim.cmd.edit(spec.file)
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.wait(60000, function() return perfalign.client(bufnr) ~= nil end, 100), "no client attached")
  assert(vim.wait(60000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.code == "hot" then return true end
    end
    return false
  end, 100), "no hot diagnostic")
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(result.diagnostics, { lnum = d.lnum, message = d.message, code = d.code })
  end
  vim.cmd("PerfalignHotspots")
  assert(vim.wait(20000, function() return #vim.fn.getqflist() > 0 end, 100), "the quickfix list stayed empty")
  result.title = vim.fn.getqflist({ title = 1 }).title
  result.items = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(result.items, { file = vim.api.nvim_buf_get_name(item.bufnr), lnum = item.lnum, text = item.text })
  end
  vim.cmd("cc 1")
  result.jump = { file = vim.api.nvim_buf_get_name(0), line = vim.api.nvim_win_get_cursor(0)[1] }
  result.ok = true
end)
if not ok then result.error = tostring(err) end
finish()
