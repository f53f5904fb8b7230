-- perfalign settings: the same names as the VS Code extension's.
local M = {}

-- Sent to the server as the "perfalign" section of workspace/configuration.
M.server_keys = {
  "model", "backend", "endpoint", "samples", "threads", "cc", "cxx", "cflags",
  "threshold", "compileTimeoutS", "runTimeoutS", "dbPath", "sandbox",
}

M.defaults = {
  serverPath = nil, -- the `perfalign` command; nil: `perfalign` on PATH, else pythonPath
  pythonPath = nil, -- python of the environment where perfalign is installed
  filetypes = { "c", "cpp" },
  rootMarkers = { "perfalign.toml", "compile_commands.json", ".perfalign", ".git" },
  maxRestarts = 3, -- restarts after a crash, within 3 minutes
  -- "auto": vim.lsp.config + vim.lsp.enable on 0.11+, vim.lsp.start on 0.10;
  -- "start": vim.lsp.start for each C/C++ buffer on any version.
  register = "auto",
}

local function camel(key)
  return (key:gsub("_(%l)", string.upper))
end

--- Split user options into the plugin's own options and the server's settings.
--- Accepts camelCase (as in VS Code) or snake_case keys.
---@param opts table|nil
---@return table options, table settings, string[] unknown
function M.normalize(opts)
  local options = vim.deepcopy(M.defaults)
  local settings, unknown = {}, {}
  local is_server = {}
  for _, key in ipairs(M.server_keys) do
    is_server[key] = true
  end
  for key, value in pairs(opts or {}) do
    local name = camel(key)
    if name == "settings" and type(value) == "table" then
      for k, v in pairs(value) do
        settings[camel(k)] = v
      end
    elseif is_server[name] then
      settings[name] = value
    elseif M.defaults[name] ~= nil or name == "serverPath" or name == "pythonPath" or name == "cmd" then
      options[name] = value
    else
      table.insert(unknown, key)
    end
  end
  return options, settings, unknown
end

local function executable(path)
  return path ~= nil and path ~= "" and vim.fn.executable(vim.fn.expand(path)) == 1
end

--- How to run `perfalign`: a list of arguments before the subcommand, or nil and a message with the fix.
---@return string[]|nil, string|nil
function M.perfalign_command(options)
  if type(options.cmd) == "table" then
    return options.cmd, nil
  end
  local server = options.serverPath
  if server ~= nil and server ~= "" then
    if not executable(server) then
      return nil, ('perfalign: serverPath is "%s", but no executable file is there. Point it at the '
        .. "`perfalign` command of the environment where perfalign is installed "
        .. "(for example /path/to/.venv/bin/perfalign), or remove it to use `perfalign` from PATH."):format(server)
    end
    return { vim.fn.expand(server) }, nil
  end
  local found = vim.fn.exepath("perfalign")
  if found ~= "" then
    return { found }, nil
  end
  local python = options.pythonPath
  if python ~= nil and python ~= "" then
    if not executable(python) then
      return nil, ('perfalign: pythonPath is "%s", but no Python interpreter is there. Point it at the '
        .. "python of the environment where perfalign is installed, or remove it."):format(python)
    end
    local beside = vim.fs.joinpath(vim.fs.dirname(vim.fn.expand(python)), "perfalign")
    if executable(beside) then
      return { beside }, nil
    end
    return { vim.fn.expand(python), "-c",
      "import sys; from perfalign.server.cli import main; sys.argv[0] = 'perfalign'; main()" }, nil
  end
  return nil, "perfalign: the language server was not found: `perfalign` is not on PATH and neither "
    .. "serverPath nor pythonPath is set. Install it with `pip install perfalign` in a Python 3.11+ "
    .. 'environment, then call require("perfalign").setup{ serverPath = "/path/to/.venv/bin/perfalign" }.'
end

return M
