<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AidsForm</name>
    <message>
        <source>validation loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>validation accuracy</source>
        <translation>验证准确率</translation>
    </message>
    <message>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>training accuracy</source>
        <translation>训练准确率</translation>
    </message>
    <message>
        <source>The metric early stopping, the plateau and the best-epoch checkpoint watch; a validation metric needs a validation split</source>
        <translation>早停、学习率衰减（平台期）和最佳检查点所监控的指标；验证指标需要划分验证集</translation>
    </message>
    <message>
        <source>Watched by early stopping, the plateau and the best-epoch checkpoint: turn one of them on</source>
        <translation>由早停、学习率衰减（平台期）和最佳检查点监控：请先开启其中之一</translation>
    </message>
    <message>
        <source>Stop the run when the monitored metric has not improved for Patience epochs in a row (Keras EarlyStopping)</source>
        <translation>监控指标连续“耐心值”轮没有改善时停止运行（Keras EarlyStopping）</translation>
    </message>
    <message>
        <source>When early stopping stops the run, go back to the weights of the best epoch instead of keeping the last one</source>
        <translation>早停结束运行时，恢复到最佳一轮的权重，而不是保留最后一轮的权重</translation>
    </message>
    <message>
        <source>Multiply the learning rate by Factor when the monitored metric has not improved for Patience epochs, never below the minimum (Keras ReduceLROnPlateau)</source>
        <translation>监控指标连续“耐心值”轮没有改善时，把学习率乘以“因子”，但不低于最小学习率（Keras ReduceLROnPlateau）</translation>
    </message>
    <message>
        <source>The run keeps the weights (as float32) of the epoch with the best monitored metric, and exports those rather than the last epoch&apos;s</source>
        <translation>运行会保留监控指标最佳的那一轮的权重（以 float32 保存），导出时使用这些权重，而不是最后一轮的权重</translation>
    </message>
    <message>
        <source>Writes TensorBoard scalars (loss, accuracy, learning rate, loss scale) into the run&apos;s folder; &quot;Open in TensorBoard&quot; in the Run menu shows them</source>
        <translation>把 TensorBoard 标量（损失、准确率、学习率、损失缩放因子）写入本次运行的文件夹；用“运行”菜单中的“在 TensorBoard 中打开”查看</translation>
    </message>
    <message>
        <source>When a step runs out of device memory, the run starts again at half the batch (the learning rate scaled by the same factor, the linear rule), and halves again if need be, down to this batch size</source>
        <translation>某一步耗尽设备内存时，以一半的批次大小重新开始运行（学习率按相同倍数缩放，即线性规则），必要时再次减半，最低到此批次大小</translation>
    </message>
    <message>
        <source>On a NaN or inf loss, re-run that step with a check after every layer and name the first layer whose output or gradient is not finite. Costs nothing until a loss goes bad</source>
        <translation>损失出现 NaN 或 inf 时，重新运行该步并在每一层之后检查，指出第一个输出或梯度不是有限值的层。损失出问题之前没有任何开销</translation>
    </message>
    <message>
        <source>Samples how many gradients flush to zero in float16, with and without the loss scale. Cost: one extra forward+backward pass on a fixed batch every N steps (about 1/N more compute, e.g. 2% at N=50) plus a device sync; mixed_float16 only</source>
        <translation>采样统计有多少梯度在 float16 中变为零（分别在有和没有损失缩放时）。开销：每 N 步在一个固定批次上多做一次前向 + 反向传播（约多 1/N 的计算量，例如 N=50 时为 2%），外加一次设备同步；仅适用于 mixed_float16</translation>
    </message>
    <message>
        <source>Only for mixed_float16: float32 gradients do not underflow</source>
        <translation>仅适用于 mixed_float16：float32 梯度不会下溢</translation>
    </message>
    <message>
        <source>Only for mixed_float16: bfloat16 keeps float32&apos;s exponent range, so small gradients do not underflow</source>
        <translation>仅适用于 mixed_float16：bfloat16 保留了 float32 的指数范围，小梯度不会下溢</translation>
    </message>
    <message>
        <source>Only for mixed_float16: float8 layers scale their own gradients and bfloat16 keeps float32&apos;s exponent range</source>
        <translation>仅用于 mixed_float16：float8 层自行缩放其梯度，bfloat16 保留 float32 的指数范围</translation>
    </message>
    <message>
        <source> epochs</source>
        <translation> 轮</translation>
    </message>
    <message>
        <source>Early stopping</source>
        <translation>早停</translation>
    </message>
    <message>
        <source>Restore best weights</source>
        <translation>恢复最佳权重</translation>
    </message>
    <message>
        <source>Reduce learning rate on plateau</source>
        <translation>学习率衰减（平台期）</translation>
    </message>
    <message>
        <source>The learning rate is multiplied by this on a plateau (0.5 halves it)</source>
        <translation>进入平台期时学习率乘以此值（0.5 即减半）</translation>
    </message>
    <message>
        <source>The plateau never lowers the learning rate below this (type e.g. 1e-6; the arrows step by a factor of 10)</source>
        <translation>平台期衰减不会使学习率低于此值（可输入如 1e-6；上下箭头按 10 倍调整）</translation>
    </message>
    <message>
        <source>Keep the best epoch&apos;s weights (for export)</source>
        <translation>保留最佳一轮的权重（用于导出）</translation>
    </message>
    <message>
        <source>Write TensorBoard logs</source>
        <translation>写入 TensorBoard 日志</translation>
    </message>
    <message>
        <source>Retry with half the batch when out of memory</source>
        <translation>内存不足时以一半批次重试</translation>
    </message>
    <message>
        <source>Diagnose a NaN/inf loss (name the first bad layer)</source>
        <translation>诊断 NaN/inf 损失（指出第一个出错的层）</translation>
    </message>
    <message>
        <source>Gradient-underflow view</source>
        <translation>梯度下溢视图</translation>
    </message>
    <message>
        <source> steps</source>
        <translation> 步</translation>
    </message>
    <message>
        <source>every </source>
        <translation>每 </translation>
    </message>
    <message>
        <source>Monitor</source>
        <translation>监控指标</translation>
    </message>
    <message>
        <source>Patience</source>
        <translation>耐心值</translation>
    </message>
    <message>
        <source>Factor</source>
        <translation>因子</translation>
    </message>
    <message>
        <source>Minimum rate</source>
        <translation>最小学习率</translation>
    </message>
    <message>
        <source>Down to batch</source>
        <translation>最小批次</translation>
    </message>
    <message>
        <source>Only for mixed_float16 (the precision is {precision})</source>
        <translation>仅适用于 mixed_float16（当前精度为 {precision}）</translation>
    </message>
    <message>
        <source>The {monitor} needs validation data, and this run&apos;s validation split is 0: monitor the training loss instead</source>
        <translation>{monitor}需要验证数据，而本次运行的验证集比例为 0：请改为监控训练损失</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set).
  Without a window, the command line trains and compares: `mpstudio train --help`, `mpstudio compare --help` (`mpstudio --help` lists the rest).
  To see the window from another machine, connect with a display: `ssh -X` (or `ssh -Y`), or a VNC or remote desktop session.</source>
        <translation>没有可以打开窗口的显示器（`DISPLAY` 和 `WAYLAND_DISPLAY` 都未设置）。
  没有窗口时，可用命令行训练和对比：`mpstudio train --help`、`mpstudio compare --help`（`mpstudio --help` 列出其余命令）。
  要从另一台机器看到窗口，请带显示连接：`ssh -X`（或 `ssh -Y`），或使用 VNC 或远程桌面会话。</translation>
    </message>
    <message>
        <source>QT_QPA_PLATFORM={platform} shows no window: the app runs invisibly until you press Ctrl-C here. Without a display, use `mpstudio train --help`.</source>
        <translation>`QT_QPA_PLATFORM={platform}` 不显示窗口：程序会在后台不可见地运行，直到你在这里按 `Ctrl-C`。没有显示器时，请使用 `mpstudio train --help`。</translation>
    </message>
    <message>
        <source>the window cannot open: Qt&apos;s X11 platform plugin (xcb) needs system libraries that are not installed: {libraries}. Install them with `{command}` and start mpstudio again.</source>
        <translation>窗口无法打开：Qt 的 X11 平台插件（xcb）需要的系统库未安装：{libraries}。请用 `{command}` 安装后重新启动 mpstudio。</translation>
    </message>
    <message>
        <source>the window cannot open: Qt&apos;s X11 platform plugin (xcb) needs system libraries that are not installed: {libraries}. Install the packages that provide them with your distribution&apos;s package manager and start mpstudio again.</source>
        <translation>窗口无法打开：Qt 的 X11 平台插件（xcb）需要的系统库未安装：{libraries}。请用你的发行版的包管理器安装提供它们的软件包，然后重新启动 mpstudio。</translation>
    </message>
    <message>
        <source>the window cannot open: QT_QPA_PLATFORM={value} names no platform this Qt has ({platforms}). Unset it, or set it to one of those, and start mpstudio again.</source>
        <translation>窗口无法打开：QT_QPA_PLATFORM={value} 不是这个 Qt 所带的平台（{platforms}）。请取消它，或设为其中之一，然后重新启动 mpstudio。</translation>
    </message>
    <message>
        <source>the window cannot open: no display answers at {displays} (left over from an ssh session that has ended, or a desktop that has closed?). Connect again with `ssh -X`, or unset it in this terminal; without a window, `mpstudio train --help`.</source>
        <translation>窗口无法打开：{displays} 处没有显示器应答（是已结束的 ssh 会话或已关闭的桌面留下的？）。请用 `ssh -X` 重新连接，或在这个终端中取消它；没有窗口时，请用 `mpstudio train --help`。</translation>
    </message>
    <message>
        <source>{signal}: quitting as File &gt; Quit does</source>
        <translation>{signal}：按“文件 &gt; 退出”的方式退出</translation>
    </message>
    <message>
        <source>window shown {seconds} s after start; starting the engine process</source>
        <translation>启动后 {seconds} 秒显示窗口；正在启动引擎进程</translation>
    </message>
</context>
<context>
    <name>BatchFinderDialog</name>
    <message>
        <source>Find the largest batch</source>
        <translation>查找最大批次</translation>
    </message>
    <message>
        <source>precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>try</source>
        <translation>尝试</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>批次</translation>
    </message>
    <message>
        <source>outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>Mixed precision halves what activations take: spend it on a larger batch. This tries the setup&apos;s run for a few steps at growing batches, float32 first and then its mixed precision, each try in a fresh process, until one runs out of memory. Then compare float32 at its largest batch with mixed precision at its own, the learning rate scaled linearly, as NVIDIA&apos;s published speedups are measured. The same as `mpstudio find-batch`.</source>
        <translation>混合精度让激活值占用的内存减半：把它用在更大的批次上。这里以逐步增大的批次把当前设置的训练各跑几步，先 float32，再其混合精度，每次尝试都在新进程中进行，直到内存不足。然后以 float32 的最大批次对比混合精度自己的最大批次，学习率按线性规则缩放，这正是 NVIDIA 公布加速比的测量方式。与 `mpstudio find-batch` 相同。</translation>
    </message>
    <message>
        <source>the whole device</source>
        <translation>整个设备</translation>
    </message>
    <message>
        <source>The memory a try may use: on a GPU a limit on its memory, on the CPU a limit on TensorFlow&apos;s allocator (how to try the search without filling the machine)</source>
        <translation>每次尝试可用的内存：在 GPU 上限制其显存，在 CPU 上限制 TensorFlow 的分配器（这样试用查找不会占满本机内存）</translation>
    </message>
    <message>
        <source>Tries per precision; a try that runs out of memory takes about 10 s more (TensorFlow waits for memory first)</source>
        <translation>每种精度的尝试次数；内存不足的尝试约多花 10 秒（TensorFlow 会先等待内存释放）</translation>
    </message>
    <message>
        <source>Memory cap:</source>
        <translation>内存上限：</translation>
    </message>
    <message>
        <source>Tries per precision:</source>
        <translation>每种精度尝试次数：</translation>
    </message>
    <message>
        <source>Press Start to search.</source>
        <translation>按“开始”进行查找。</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Compare at these batches</source>
        <translation>在这些批次下对比(&amp;C)</translation>
    </message>
    <message>
        <source>C&amp;lose</source>
        <translation>关闭(&amp;L)</translation>
    </message>
    <message>
        <source>float32 at its largest batch against mixed precision at its own, the learning rate scaled linearly from the setup&apos;s; the card shows both batches</source>
        <translation>float32 使用其最大批次，混合精度使用它自己的最大批次，学习率从当前设置线性缩放；对比卡片会显示两个批次</translation>
    </message>
    <message>
        <source>Starting a fresh engine process…</source>
        <translation>正在启动新的引擎进程…</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>The search could not run: {message}</source>
        <translation>查找无法运行：{message}</translation>
    </message>
    <message>
        <source>Stopping: ending the try that runs…</source>
        <translation>正在停止：结束正在进行的尝试…</translation>
    </message>
    <message>
        <source>{why}: start the search when it has ended.</source>
        <translation>{why}：请在其结束后再开始查找。</translation>
    </message>
    <message>
        <source>The engine is still working ({jobs}): start the search when it has finished.</source>
        <translation>引擎仍在工作（{jobs}）：请在其完成后再开始查找。</translation>
    </message>
    <message>
        <source>the batch-size finder</source>
        <translation>批次大小查找</translation>
    </message>
    <message>
        <source>finding the largest batch of {baseline} and {precision} from batch {batch}</source>
        <translation>正在从批次 {batch} 起查找 {baseline} 与 {precision} 的最大批次</translation>
    </message>
    <message>
        <source>stopped before it started</source>
        <translation>开始前已停止</translation>
    </message>
    <message>
        <source>batch-size finder: {message}</source>
        <translation>批次大小查找：{message}</translation>
    </message>
</context>
<context>
    <name>CentralTabs</name>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Comparison</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>The verdict and both sides&apos; figures of the comparison on the charts</source>
        <translation>图表上这次对比的结论及双方的各项指标</translation>
    </message>
</context>
<context>
    <name>ChartExport</name>
    <message>
        <source>charts are saved as .png or .svg; {name} has {suffix}</source>
        <translation>图表只能保存为 .png 或 .svg；{name} 的扩展名是 {suffix}</translation>
    </message>
    <message>
        <source>charts are saved as .png or .svg; {name} has no suffix</source>
        <translation>图表只能保存为 .png 或 .svg；{name} 没有扩展名</translation>
    </message>
    <message>
        <source>could not write a PNG image to {path}</source>
        <translation>无法将 PNG 图像写入 {path}</translation>
    </message>
    <message>
        <source>could not draw the SVG</source>
        <translation>无法绘制 SVG</translation>
    </message>
</context>
<context>
    <name>ChartMenu</name>
    <message>
        <source>PNG image (*.png);;SVG image (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 图像 (*.svg)</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Save the charts (PNG or SVG)…</source>
        <translation>保存图表（PNG 或 SVG）…</translation>
    </message>
    <message>
        <source>Save this chart&apos;s data as CSV…</source>
        <translation>将此图表的数据保存为 CSV…</translation>
    </message>
    <message>
        <source>Save the charts</source>
        <translation>保存图表</translation>
    </message>
    <message>
        <source>Cannot save the charts to {path}: {error}</source>
        <translation>无法将图表保存到 {path}：{error}</translation>
    </message>
    <message>
        <source>Save the chart&apos;s data</source>
        <translation>保存图表数据</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
</context>
<context>
    <name>ChartPanel</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>warm-up</source>
        <translation>预热</translation>
    </message>
</context>
<context>
    <name>CheckAdvice</name>
    <message>
        <source>Your first run compares {policy} with float32 on {device}: speed, memory and accuracy side by side, with a verdict on whether mixed precision pays here ({recommended} is recommended). Untick Compare with float32 for a single run.</source>
        <translation>您的第一次运行会在 {device} 上对比 {policy} 与 float32：速度、内存和准确率并排显示，并给出混合精度在此是否值得的结论（推荐的是 {recommended}）。取消勾选“与 float32 对比”即可只运行一次。</translation>
    </message>
</context>
<context>
    <name>CheckView</name>
    <message>
        <source>No precision policy runs on this machine.</source>
        <translation>本机上没有可运行的精度策略。</translation>
    </message>
    <message>
        <source>Recommended here: {policy} on {device}</source>
        <translation>本机推荐：在 {device} 上使用 {policy}</translation>
    </message>
    <message>
        <source>Verdicts on {device} use your model as measured here ({model} at batch {batch}); ratios are the speed against float32.</source>
        <translation>{device} 上的结论采用你的模型在本机的实测结果（{model}，批次大小 {batch}）；倍数是相对 float32 的速度。</translation>
    </message>
    <message>
        <source>The measurement was stopped early: the verdicts use what was measured and the hardware rules for the rest.</source>
        <translation>测量已提前停止：结论采用已测得的结果，其余部分按硬件规则判断。</translation>
    </message>
    <message>
        <source>Verdicts use the measurement: ratios are the speed against float32 here.</source>
        <translation>结论采用测量结果：倍数是本机上相对 float32 的速度。</translation>
    </message>
    <message>
        <source>Verdicts come from what the hardware is. Measure times matmul and conv in each precision on every device, then your model on this machine (about 20-30 s).</source>
        <translation>结论依据硬件本身得出。“测量”会在每个设备上以各种精度为 matmul 和 conv 计时，然后在本机上为你的模型计时（约 20-30 秒）。</translation>
    </message>
    <message>
        <source>{device} — {reason}</source>
        <translation>{device} — {reason}</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Advice</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>{title}. {text}</source>
        <translation>{title}。{text}</translation>
    </message>
</context>
<context>
    <name>ComparisonCardView</name>
    <message>
        <source>Tick &quot;Compare with float32&quot; and run, or select two runs in History and click Compare.</source>
        <translation>勾选“与 float32 对比”后运行，或在“历史记录”中选择两次运行并点击“对比”。</translation>
    </message>
    <message>
        <source>How is this decided?</source>
        <translation>结论是如何得出的？</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <source>Save the card, the curves and the runs&apos; settings as an HTML report</source>
        <translation>将对比卡片、曲线和各次运行的设置保存为 HTML 报告</translation>
    </message>
    <message>
        <source>{baseline} vs {mixed}</source>
        <translation>{baseline} 与 {mixed}</translation>
    </message>
    <message>
        <source> · median of {trials} trials</source>
        <translation> · {trials} 次试验的中位数</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
</context>
<context>
    <name>ConnectDialog</name>
    <message>
        <source>Connect to a server</source>
        <translation>连接到服务器</translation>
    </message>
    <message>
        <source>gpu-box, me@10.0.0.5 or ssh://me@host:2222</source>
        <translation>gpu-box、me@10.0.0.5 或 ssh://me@host:2222</translation>
    </message>
    <message>
        <source>mpstudio, ~/venvs/mp/ or conda run --no-capture-output -n mp mpstudio</source>
        <translation>mpstudio、~/venvs/mp/ 或 conda run --no-capture-output -n mp mpstudio</translation>
    </message>
    <message>
        <source>mpstudio runs &lt;code&gt;ssh SERVER MPSTUDIO engine connect&lt;/code&gt; with your keys, agent and ~/.ssh/config (aliases, ProxyJump, ports). The server needs mpstudio (&lt;code&gt;pip install mpstudio&lt;/code&gt;) and a login without a password prompt. Runs go on there when the connection drops; the window catches up when it reconnects. For Slurm or Kubernetes, give the whole command: &lt;code&gt;command:srun --gres=gpu:1 mpstudio engine connect&lt;/code&gt;.</source>
        <translation>mpstudio 用你的身份文件、ssh-agent 和 ~/.ssh/config（别名、ProxyJump、端口）运行 &lt;code&gt;ssh SERVER MPSTUDIO engine connect&lt;/code&gt;。服务器上需要安装 mpstudio（&lt;code&gt;pip install mpstudio&lt;/code&gt;），并且登录时不提示输入口令。连接断开时，运行在服务器上照常继续；窗口重新连接后会补上错过的内容。对于 Slurm 或 Kubernetes，请给出完整的命令：&lt;code&gt;command:srun --gres=gpu:1 mpstudio engine connect&lt;/code&gt;。</translation>
    </message>
    <message>
        <source>&amp;Server:</source>
        <translation>服务器(&amp;S)：</translation>
    </message>
    <message>
        <source>&amp;mpstudio there:</source>
        <translation>服务器上的 mpstudio(&amp;M)：</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <source>give a server: for this computer, use Engine &gt; This computer</source>
        <translation>请给出服务器：要使用本机，请选择“引擎 &gt; 本机”</translation>
    </message>
</context>
<context>
    <name>CopyBack</name>
    <message>
        <source>the copy was not made</source>
        <translation>没有完成复制</translation>
    </message>
    <message>
        <source>exported on {host} but not copied here: {reason}</source>
        <translation>已在 {host} 上导出，但没有复制到本机：{reason}</translation>
    </message>
</context>
<context>
    <name>DatasetPicker</name>
    <message>
        <source>image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>sequence</source>
        <translation>序列</translation>
    </message>
    <message>
        <source>flat</source>
        <translation>扁平特征</translation>
    </message>
    <message>
        <source>, {count} test</source>
        <translation> / 测试 {count}</translation>
    </message>
    <message>
        <source>{train} train / {validation} validation{test} · {kind} {shape} · {classes} classes</source>
        <translation>训练 {train} / 验证 {validation}{test} · {kind} {shape} · {classes} 个类别</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Train on your own data: an .npz or .csv file, or a folder of images with one sub-folder per class</source>
        <translation>用你自己的数据训练：一个 .npz 或 .csv 文件，或一个图像文件夹（每个类别一个子文件夹）</translation>
    </message>
    <message>
        <source>Data file (.npz, .csv)…</source>
        <translation>数据文件 (.npz, .csv)…</translation>
    </message>
    <message>
        <source>Image folder…</source>
        <translation>图像文件夹…</translation>
    </message>
    <message>
        <source>bundled</source>
        <translation>内置</translation>
    </message>
    <message>
        <source>download</source>
        <translation>需下载</translation>
    </message>
    <message>
        <source>generated</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
</context>
<context>
    <name>DeviceCard</name>
    <message>
        <source>GPU (unused)</source>
        <translation>GPU（未使用）</translation>
    </message>
    <message>
        <source>TensorFlow cannot use this GPU: {reason}</source>
        <translation>TensorFlow 无法使用此 GPU：{reason}</translation>
    </message>
    <message>
        <source>Note: {note}</source>
        <translation>注：{note}</translation>
    </message>
    <message>
        <source>runs here</source>
        <translation>在此运行</translation>
    </message>
    <message>
        <source>The device a run on this machine uses</source>
        <translation>本机上的运行所使用的设备</translation>
    </message>
    <message>
        <source>(default)</source>
        <translation>（默认）</translation>
    </message>
    <message>
        <source>The policy a run on this device starts with</source>
        <translation>在此设备上运行时默认使用的策略</translation>
    </message>
    <message>
        <source>{policy}&apos;s speed against float32, measured here</source>
        <translation>{policy} 相对 float32 的速度（本机实测）</translation>
    </message>
</context>
<context>
    <name>DistributionForm</name>
    <message>
        <source>One device</source>
        <translation>单设备</translation>
    </message>
    <message>
        <source>Mirrored (local GPUs)</source>
        <translation>镜像（本机多 GPU）</translation>
    </message>
    <message>
        <source>Multi-worker (TF_CONFIG cluster)</source>
        <translation>多机（TF_CONFIG 集群）</translation>
    </message>
    <message>
        <source>worker {index}</source>
        <translation>工作节点 {index}</translation>
    </message>
    <message>
        <source>chief {index}</source>
        <translation>主节点 {index}</translation>
    </message>
    <message>
        <source>The batch size is per replica, so N replicas train on an N times larger global batch; the linear scaling rule multiplies the learning rate by N to match. Untick to keep the learning rate as given.</source>
        <translation>批次大小按每副本计，因此 N 个副本以 N 倍大的全局批次训练；线性缩放规则相应地把学习率乘以 N。取消勾选则保持给定的学习率。</translation>
    </message>
    <message>
        <source>Raise the learning rate linearly from 0 to its (scaled) value over this many steps: large global batches often need it to start stably.</source>
        <translation>在这么多步内把学习率从 0 线性提高到（缩放后的）目标值：较大的全局批次通常需要预热才能平稳起步。</translation>
    </message>
    <message>
        <source>{title} - unavailable</source>
        <translation>{title} - 不可用</translation>
    </message>
    <message>
        <source>{title} - 1 replica</source>
        <translation>{title} - 1 个副本</translation>
    </message>
    <message>
        <source>{title} - {count} replicas</source>
        <translation>{title} - {count} 个副本</translation>
    </message>
    <message>
        <source>batch {batch} on 1 replica</source>
        <translation>批次大小 {batch}，1 个副本</translation>
    </message>
    <message>
        <source>global batch {total} = {batch} per replica x {replicas} replicas</source>
        <translation>全局批次 {total} = 每副本 {batch} × {replicas} 个副本</translation>
    </message>
    <message>
        <source>learning rate {base} -&gt; {target} (linear scaling rule: x{replicas} replicas)</source>
        <translation>学习率 {base} -&gt; {target}（线性缩放规则：×{replicas} 个副本）</translation>
    </message>
    <message>
        <source>learning rate {base}, not scaled for {replicas} replicas (lr_scaling none)</source>
        <translation>学习率 {base}，未按 {replicas} 个副本缩放（未启用学习率缩放）</translation>
    </message>
    <message>
        <source>learning rate {base}</source>
        <translation>学习率 {base}</translation>
    </message>
    <message>
        <source>, warmed up linearly from 0 over {steps} steps</source>
        <translation>，在 {steps} 步内从 0 线性预热</translation>
    </message>
    <message>
        <source>{task} ({address})</source>
        <translation>{task}（{address}）</translation>
    </message>
    <message>
        <source>Scale learning rate with replicas (linear rule)</source>
        <translation>学习率随副本数缩放（线性规则）</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Warmup steps</source>
        <translation>预热步数</translation>
    </message>
    <message>
        <source>{batch}; {rate}</source>
        <translation>{batch}；{rate}</translation>
    </message>
    <message>
        <source>One device ({where}): {facts}</source>
        <translation>单设备（{where}）：{facts}</translation>
    </message>
    <message>
        <source>One device: {facts}</source>
        <translation>单设备：{facts}</translation>
    </message>
    <message>
        <source>Mirrored over {replicas} replicas ({where}): {facts}</source>
        <translation>镜像到 {replicas} 个副本（{where}）：{facts}</translation>
    </message>
    <message>
        <source>TPU over {replicas} replicas ({where}): {facts}</source>
        <translation>TPU，{replicas} 个副本（{where}）：{facts}</translation>
    </message>
    <message>
        <source>; this host is {task}, the chief</source>
        <translation>；本机是{task}，即主节点</translation>
    </message>
    <message>
        <source>; this host is {task}</source>
        <translation>；本机是{task}</translation>
    </message>
    <message>
        <source>Multi-worker over {workers} workers, {replicas} replicas in all{role}: {facts}. The run starts a worker process for this host (mpstudio train --strategy multiworker) that joins the other hosts, which must be started the same way (README, &quot;More than one device&quot;: two hosts).</source>
        <translation>多机：{workers} 个工作节点，共 {replicas} 个副本{role}：{facts}。本次运行会为本机启动一个工作进程（`mpstudio train --strategy multiworker`），与其他主机会合；其他主机也须以同样方式启动（见 README 中多设备一节的两台主机示例）。</translation>
    </message>
</context>
<context>
    <name>DoctorDialog</name>
    <message>
        <source>Check training on this machine</source>
        <translation>检查本机上的训练</translation>
    </message>
    <message>
        <source>section</source>
        <translation>部分</translation>
    </message>
    <message>
        <source>check</source>
        <translation>检查项</translation>
    </message>
    <message>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Checks the whole chain on this machine: TensorFlow&apos;s build against the driver and each GPU, the GPU memory settings, a few real training steps for each template and precision the device supports, a float32-vs-mixed timing, TF32, and a mirrored step with two GPUs. The same check as `mpstudio doctor`.</source>
        <translation>检查本机上的整条训练链路：TensorFlow 构建与驱动及每个 GPU 是否匹配、GPU 显存设置、设备支持的每个模型模板和精度的几步真实训练、一次 float32 对比混合精度的计时、TF32，以及有两个 GPU 时的一次镜像训练步。与 `mpstudio doctor` 的检查相同。</translation>
    </message>
    <message>
        <source>Quick: 3 templates, 4 steps each (under a minute on a CPU)</source>
        <translation>快速：3 个模型模板，各训练 4 步（在 CPU 上不到一分钟）</translation>
    </message>
    <message>
        <source>Press Start to check.</source>
        <translation>按“开始”进行检查。</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>Save &amp;report…</source>
        <translation>保存报告(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>Save the table, versions and devices as an HTML page or JSON, to attach to a bug report</source>
        <translation>将表格、版本和设备保存为 HTML 页面或 JSON，以附在问题报告中</translation>
    </message>
    <message>
        <source>Detecting the hardware…</source>
        <translation>正在检测硬件…</translation>
    </message>
    <message>
        <source>Checking {what} ({number} of {total})</source>
        <translation>正在检查 {what}（第 {number} 项，共 {total} 项）</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>The check could not run: {message}</source>
        <translation>检查无法运行：{message}</translation>
    </message>
    <message>
        <source>Stopping after the current check…</source>
        <translation>将在当前检查项完成后停止…</translation>
    </message>
    <message>
        <source>Save the doctor report</source>
        <translation>保存检查报告</translation>
    </message>
    <message>
        <source>HTML page (*.html);;JSON (*.json)</source>
        <translation>HTML 页面 (*.html);;JSON (*.json)</translation>
    </message>
    <message>
        <source>Report saved to {path}</source>
        <translation>报告已保存到 {path}</translation>
    </message>
    <message>
        <source>{why}: start the check when it has ended.</source>
        <translation>{why}：请在其结束后再开始检查。</translation>
    </message>
    <message>
        <source>the training check</source>
        <translation>训练检查</translation>
    </message>
    <message>
        <source>checking training on this machine (quick set)</source>
        <translation>正在检查本机上的训练（快速检查集）</translation>
    </message>
    <message>
        <source>checking training on this machine (full set)</source>
        <translation>正在检查本机上的训练（完整检查集）</translation>
    </message>
    <message>
        <source>training check: {summary}</source>
        <translation>训练检查：{summary}</translation>
    </message>
    <message>
        <source>stopped before it started</source>
        <translation>在开始之前已停止</translation>
    </message>
</context>
<context>
    <name>EngineClient</name>
    <message>
        <source>the engine on {host} ended while this window was away; its runs are in History</source>
        <translation>{host} 上的引擎在此窗口断开期间结束了；它的运行在历史记录中</translation>
    </message>
    <message>
        <source>the connection to {host} dropped</source>
        <translation>到 {host} 的连接断开了</translation>
    </message>
    <message>
        <source>the engine process {how} before it was ready, {count} times in a row</source>
        <translation>引擎进程在就绪之前{how}，已连续 {count} 次</translation>
    </message>
</context>
<context>
    <name>EngineEnd</name>
    <message>
        <source>was killed</source>
        <translation>被强制终止</translation>
    </message>
    <message>
        <source>by the system, often for running out of memory, or from outside</source>
        <translation>由系统发出，通常是因为内存耗尽，或来自外部</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>崩溃</translation>
    </message>
    <message>
        <source>a segmentation fault inside TensorFlow or a converter</source>
        <translation>TensorFlow 或转换器内部发生段错误</translation>
    </message>
    <message>
        <source>was aborted</source>
        <translation>异常中止</translation>
    </message>
    <message>
        <source>a failed check inside TensorFlow&apos;s C++ code</source>
        <translation>TensorFlow 的 C++ 代码内部检查失败</translation>
    </message>
    <message>
        <source>a bus error</source>
        <translation>总线错误</translation>
    </message>
    <message>
        <source>a floating-point exception</source>
        <translation>浮点异常</translation>
    </message>
    <message>
        <source>was terminated</source>
        <translation>被终止</translation>
    </message>
    <message>
        <source>by a signal from outside mpstudio</source>
        <translation>由 mpstudio 外部发来的信号引起</translation>
    </message>
    <message>
        <source>was ended by a signal</source>
        <translation>被信号结束</translation>
    </message>
    <message>
        <source>the measurement</source>
        <translation>精度测速</translation>
    </message>
    <message>
        <source>the hardware check</source>
        <translation>硬件检测</translation>
    </message>
    <message>
        <source>the training check</source>
        <translation>训练检查</translation>
    </message>
    <message>
        <source>applying the GPU memory settings</source>
        <translation>应用 GPU 显存设置</translation>
    </message>
    <message>
        <source>ended by Stop now</source>
        <translation>被“立即停止”结束</translation>
    </message>
    <message>
        <source>ended on {host} (its log there says how)</source>
        <translation>在 {host} 上结束了（那里的日志说明了经过）</translation>
    </message>
    <message>
        <source>ended by Stop now ({signal})</source>
        <translation>被“立即停止”结束（{signal}）</translation>
    </message>
    <message>
        <source>{verb} ({signal}: {why})</source>
        <translation>{verb}（{signal}：{why}）</translation>
    </message>
    <message>
        <source>{verb} ({signal})</source>
        <translation>{verb}（{signal}）</translation>
    </message>
    <message>
        <source>exited with code {code}</source>
        <translation>已退出，退出码 {code}</translation>
    </message>
    <message>
        <source>stopped now: the engine was ended during {doing}</source>
        <translation>已立即停止：引擎在{doing}期间被结束</translation>
    </message>
    <message>
        <source>stopped now: the engine was ended</source>
        <translation>已立即停止：引擎已被结束</translation>
    </message>
    <message>
        <source>the engine on {host} ended during {doing}; its log there says why</source>
        <translation>{host} 上的引擎在{doing}期间结束了；那里的日志说明了原因</translation>
    </message>
    <message>
        <source>the engine on {host} ended; its log there says why</source>
        <translation>{host} 上的引擎结束了；那里的日志说明了原因</translation>
    </message>
    <message>
        <source>the engine process {how} during {doing}</source>
        <translation>引擎进程在{doing}期间{how}</translation>
    </message>
    <message>
        <source>the engine process {how}</source>
        <translation>引擎进程{how}</translation>
    </message>
</context>
<context>
    <name>EngineMenu</name>
    <message>
        <source>Connect to a &amp;server…</source>
        <translation>连接到服务器(&amp;S)…</translation>
    </message>
    <message>
        <source>Drive the engine on a GPU server through ssh: runs go on there when the connection drops</source>
        <translation>通过 `ssh` 驱动 GPU 服务器上的引擎：连接断开时，运行在服务器上照常继续</translation>
    </message>
    <message>
        <source>This &amp;computer</source>
        <translation>本机(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Reconnect</source>
        <translation>重新连接(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Engine</source>
        <translation>引擎(&amp;E)</translation>
    </message>
    <message>
        <source>Rece&amp;nt servers</source>
        <translation>最近的服务器(&amp;N)</translation>
    </message>
    <message>
        <source>switching the engine to {where}</source>
        <translation>正在把引擎切换到 {where}</translation>
    </message>
    <message>
        <source>Work is running</source>
        <translation>有工作正在运行</translation>
    </message>
    <message>
        <source>The engine on {here} is running work. Switch to {there}?</source>
        <translation>{here} 上的引擎正在运行工作。要切换到 {there} 吗？</translation>
    </message>
    <message>
        <source>Leave it running there</source>
        <translation>让它在那里继续运行</translation>
    </message>
    <message>
        <source>Left running, its runs reach {here}&apos;s History when they end.</source>
        <translation>若让它继续运行，其中的运行结束后会进入 {here} 的历史记录。</translation>
    </message>
    <message>
        <source>Stop it</source>
        <translation>停止它</translation>
    </message>
    <message>
        <source>{problem}; the engine goes on there, reconnecting…</source>
        <translation>{problem}；引擎在那里继续运行，正在重新连接…</translation>
    </message>
    <message>
        <source>reconnecting to {host}…</source>
        <translation>正在重新连接到 {host}…</translation>
    </message>
    <message>
        <source>Not connected to {host}: {problem}. Engine &gt; Reconnect tries again; Engine &gt; This computer trains here.</source>
        <translation>未连接到 {host}：{problem}。“引擎 &gt; 重新连接”会再试一次；“引擎 &gt; 本机”则改在本机训练。</translation>
    </message>
    <message>
        <source>not connected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <source>reconnecting…</source>
        <translation>正在重新连接…</translation>
    </message>
    <message>
        <source>connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>engine: {where}</source>
        <translation>引擎：{where}</translation>
    </message>
</context>
<context>
    <name>EngineStartup</name>
    <message>
        <source>pid {pid}; its log: {log}</source>
        <translation>进程号 {pid}；日志：{log}</translation>
    </message>
    <message>
        <source>pid {pid}</source>
        <translation>进程号 {pid}</translation>
    </message>
    <message>
        <source>TensorFlow {tensorflow}, Keras {keras} loaded in the engine process ({process})</source>
        <translation>TensorFlow {tensorflow}、Keras {keras} 已在引擎进程中加载（{process}）</translation>
    </message>
    <message>
        <source>a fresh engine process is ready ({process})</source>
        <translation>新的引擎进程已就绪（{process}）</translation>
    </message>
    <message>
        <source>GPU memory: {message}</source>
        <translation>GPU 显存：{message}</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>TensorFlow could not load</source>
        <translation>TensorFlow 无法加载</translation>
    </message>
    <message>
        <source>TensorFlow could not load, so nothing can train: {reason}. Reinstall it (pip install -e .) and restart mpstudio.</source>
        <translation>TensorFlow 无法加载，因此无法进行任何训练：{reason}。请重新安装（`pip install -e .`）并重新启动 mpstudio。</translation>
    </message>
    <message>
        <source>starting a fresh engine process… (a run started now begins as soon as it is ready)</source>
        <translation>正在启动新的引擎进程…（现在开始的运行会在它就绪后立即开始）</translation>
    </message>
    <message>
        <source>starting a fresh engine process…</source>
        <translation>正在启动新的引擎进程…</translation>
    </message>
    <message>
        <source>{reason}; starting a fresh engine process (what it printed is in {log})</source>
        <translation>{reason}；正在启动新的引擎进程（它输出的内容在 {log} 中）</translation>
    </message>
    <message>
        <source>{reason}; starting a fresh engine process</source>
        <translation>{reason}；正在启动新的引擎进程</translation>
    </message>
    <message>
        <source>The engine process {how} while idle. A fresh one is starting; your setup is unchanged.</source>
        <translation>引擎进程在空闲时{how}。新的引擎进程正在启动；你的设置保持不变。</translation>
    </message>
</context>
<context>
    <name>ExportActions</name>
    <message>
        <source>Run {id}</source>
        <translation>运行 {id}</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>TensorFlow is still loading</source>
        <translation>TensorFlow 仍在加载</translation>
    </message>
    <message>
        <source>TensorFlow could not load</source>
        <translation>TensorFlow 无法加载</translation>
    </message>
    <message>
        <source>A run is in progress: export when it has ended</source>
        <translation>有运行正在进行：请在它结束后再导出</translation>
    </message>
    <message>
        <source>{title} (the run you just trained)</source>
        <translation>{title}（刚训练完的运行）</translation>
    </message>
    <message>
        <source>Cannot export from History: the run history is unavailable</source>
        <translation>无法从历史记录导出：运行历史记录不可用</translation>
    </message>
    <message>
        <source>Cannot export run {id}: {reason}</source>
        <translation>无法导出运行 {id}：{reason}</translation>
    </message>
    <message>
        <source>Run {id} kept no trained model (it diverged/failed, or was recorded before mpstudio kept models)</source>
        <translation>运行 {id} 没有保存训练好的模型（它发散或失败了，或记录于 mpstudio 开始保存模型之前）</translation>
    </message>
    <message>
        <source>{title} (from History, trained {started} on {dataset})</source>
        <translation>{title}（来自历史记录，{started} 在 {dataset} 上训练）</translation>
    </message>
    <message>
        <source>exporting {what}</source>
        <translation>导出 {what}</translation>
    </message>
    <message>
        <source>exporting {what}…</source>
        <translation>正在导出 {what}…</translation>
    </message>
    <message>
        <source>Loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <source>exporting: {step}</source>
        <translation>导出中：{step}</translation>
    </message>
    <message>
        <source>copying {name} from {host}: {done} of {total}</source>
        <translation>正在从 {host} 复制 {name}：{done} / {total}</translation>
    </message>
    <message>
        <source>export: {line}</source>
        <translation>导出：{line}</translation>
    </message>
    <message>
        <source>Export cancelled; nothing was written</source>
        <translation>导出已取消；未写入任何文件</translation>
    </message>
    <message>
        <source>Export failed, nothing was written: {reason}</source>
        <translation>导出失败，未写入任何文件：{reason}</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>exists: asks before replacing it</source>
        <translation>已存在：替换前会询问</translation>
    </message>
    <message>
        <source>Export model</source>
        <translation>导出模型</translation>
    </message>
    <message>
        <source>Formats</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>The file name without a suffix; each format adds its own</source>
        <translation>不带扩展名的文件名；每种格式会加上各自的扩展名</translation>
    </message>
    <message>
        <source>Save to</source>
        <translation>保存到</translation>
    </message>
    <message>
        <source>File name</source>
        <translation>文件名</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Cancel export</source>
        <translation>取消导出</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>返回</translation>
    </message>
    <message>
        <source>Back to the formats and the folder, to export again</source>
        <translation>返回格式和文件夹选择，再次导出</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Each format is loaded back in its own runtime and compared with the trained model on held-out examples; a file is only put in place once it converted.</source>
        <translation>每种格式都会在各自的运行时中重新加载，并在留出样本上与训练好的模型比较；文件只有在转换成功后才会放到目标位置。</translation>
    </message>
    <message>
        <source>An export is running: wait for it or cancel it</source>
        <translation>导出正在进行：请等待它完成或取消它</translation>
    </message>
    <message>
        <source>Tick at least one format</source>
        <translation>请至少勾选一种格式</translation>
    </message>
    <message>
        <source>Type a file name</source>
        <translation>请输入文件名</translation>
    </message>
    <message>
        <source>The file name cannot contain any of {characters}</source>
        <translation>文件名不能包含以下任何字符：{characters}</translation>
    </message>
    <message>
        <source>Choose the folder to save to</source>
        <translation>请选择保存到的文件夹</translation>
    </message>
    <message>
        <source>The folder {folder} does not exist: choose one that does</source>
        <translation>文件夹 {folder} 不存在：请选择一个已有的文件夹</translation>
    </message>
    <message>
        <source>Export the ticked formats and verify each</source>
        <translation>导出勾选的格式并逐一验证</translation>
    </message>
    <message>
        <source>Writes into that folder:</source>
        <translation>将写入该文件夹：</translation>
    </message>
    <message>
        <source>a folder of that name is in the way: pick another name</source>
        <translation>已有同名文件夹挡住了它：请换一个名称</translation>
    </message>
    <message>
        <source>a file of that name is in the way: pick another name</source>
        <translation>已有同名文件挡住了它：请换一个名称</translation>
    </message>
    <message>
        <source>   ({note})</source>
        <translation>  （{note}）</translation>
    </message>
    <message>
        <source>Export to the folder</source>
        <translation>导出到文件夹</translation>
    </message>
    <message>
        <source>This file exists:

{names}

Replace them?</source>
        <translation>此文件已存在：

{names}

要替换吗？</translation>
    </message>
    <message>
        <source>These {count} files exist:

{names}

Replace them?</source>
        <translation>这 {count} 个文件已存在：

{names}

要替换它们吗？</translation>
    </message>
    <message>
        <source>Replace existing files?</source>
        <translation>替换已有文件？</translation>
    </message>
    <message>
        <source>Nothing exported: the existing files were kept</source>
        <translation>未导出任何内容：已保留原有文件</translation>
    </message>
    <message>
        <source>Starting the export…</source>
        <translation>正在开始导出…</translation>
    </message>
    <message>
        <source>Cancelling: the export stops after the current step…</source>
        <translation>正在取消：导出将在当前步骤结束后停止…</translation>
    </message>
</context>
<context>
    <name>ExportResultsView</name>
    <message>
        <source>NOT WRITTEN</source>
        <translation>未写入</translation>
    </message>
    <message>
        <source>FAILED</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>BELOW THRESHOLD</source>
        <translation>低于阈值</translation>
    </message>
    <message>
        <source>Not exported: {reason}</source>
        <translation>未导出：{reason}</translation>
    </message>
    <message>
        <source>Files in {folder}</source>
        <translation>文件位于 {folder}</translation>
    </message>
</context>
<context>
    <name>ExportSummary</name>
    <message>
        <source>Export cancelled: {written} of {total} written before the stop, nothing else</source>
        <translation>导出已取消：停止前写入了 {total} 个中的 {written} 个，其余均未写入</translation>
    </message>
    <message>
        <source>{ok} of {total} exported and verified</source>
        <translation>{total} 个中有 {ok} 个已导出并通过验证</translation>
    </message>
    <message>
        <source>{count} below the agreement threshold</source>
        <translation>{count} 个低于一致率阈值</translation>
    </message>
    <message>
        <source>{count} not exported</source>
        <translation>{count} 个未导出</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>{first} and {last}</source>
        <translation>{first}和{last}</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>{format} exported and verified: each agrees with the trained model</source>
        <translation>{format} 已导出并通过验证：与训练好的模型一致</translation>
    </message>
    <message>
        <source>All {total} formats exported and verified: each agrees with the trained model</source>
        <translation>全部 {total} 种格式已导出并通过验证：每种都与训练好的模型一致</translation>
    </message>
    <message>
        <source>{formats} was not exported</source>
        <translation>{formats} 未导出</translation>
    </message>
    <message>
        <source>{formats} were not exported</source>
        <translation>{formats} 未导出</translation>
    </message>
    <message>
        <source>{formats} disagrees with the trained model beyond the threshold: check its accuracy before using it</source>
        <translation>{formats} 与训练好的模型的差异超出阈值：使用前请检查其准确率</translation>
    </message>
    <message>
        <source>{formats} disagree with the trained model beyond the threshold: check its accuracy before using it</source>
        <translation>{formats} 与训练好的模型的差异超出阈值：使用前请检查它们的准确率</translation>
    </message>
    <message>
        <source>{failed} of {total} formats failed</source>
        <translation>{total} 种格式中有 {failed} 种失败</translation>
    </message>
    <message>
        <source>The export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>{head}: {problems} (details below).</source>
        <translation>{head}：{problems}（详见下方）。</translation>
    </message>
    <message>
        <source>{text} {ok} exported and verified.</source>
        <translation>{text}{ok} 种已导出并通过验证。</translation>
    </message>
    <message>
        <source>replaced just now, {size}</source>
        <translation>刚刚替换，{size}</translation>
    </message>
    <message>
        <source>written just now, {size}</source>
        <translation>刚刚写入，{size}</translation>
    </message>
</context>
<context>
    <name>FileActions</name>
    <message>
        <source>Datasets (*.npz *.csv);;NumPy archives (*.npz);;CSV tables (*.csv)</source>
        <translation>数据集 (*.npz *.csv);;NumPy 归档 (*.npz);;CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Run configs (*.toml)</source>
        <translation>运行配置 (*.toml)</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG image (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 图像 (*.svg)</translation>
    </message>
    <message>
        <source>Import a dataset file</source>
        <translation>导入数据集文件</translation>
    </message>
    <message>
        <source>Import an image folder (one sub-folder a class)</source>
        <translation>导入图像文件夹（每个子文件夹一个类别）</translation>
    </message>
    <message>
        <source>Open a run config</source>
        <translation>打开运行配置</translation>
    </message>
    <message>
        <source>Save the run config</source>
        <translation>保存运行配置</translation>
    </message>
    <message>
        <source>Save the charts</source>
        <translation>保存图表</translation>
    </message>
    <message>
        <source>Cannot import {path}: {problems}</source>
        <translation>无法导入 {path}：{problems}</translation>
    </message>
    <message>
        <source>imported {path}</source>
        <translation>已导入 {path}</translation>
    </message>
    <message>
        <source>Cannot open {path}: {problems}</source>
        <translation>无法打开 {path}：{problems}</translation>
    </message>
    <message>
        <source>opened run config {path}</source>
        <translation>已打开运行配置 {path}</translation>
    </message>
    <message>
        <source>Cannot save {path}: {reason}</source>
        <translation>无法保存 {path}：{reason}</translation>
    </message>
    <message>
        <source>saved run config {path} (mpstudio train --config {path} runs it)</source>
        <translation>已保存运行配置 {path}（用 `mpstudio train --config {path}` 运行它）</translation>
    </message>
    <message>
        <source>Cannot save the charts to {path}: {reason}</source>
        <translation>无法把图表保存到 {path}：{reason}</translation>
    </message>
    <message>
        <source>saved the charts to {path}</source>
        <translation>已把图表保存到 {path}</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
</context>
<context>
    <name>Form</name>
    <message>
        <source>PyQtGraph</source>
        <translation>PyQtGraph</translation>
    </message>
    <message>
        <source>Link Axis:</source>
        <translation>联动坐标轴：</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Links this axis with another view. When linked, both views will display the same data range.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;将此坐标轴与另一个视图联动。联动后，两个视图显示相同的数据范围。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Percent of data to be visible when auto-scaling. It may be useful to decrease this value for data with spiky noise.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;自动缩放时可见数据的百分比。数据含尖峰噪声时，调低此值可能有用。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Automatically resize this axis whenever the displayed data is changed.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;显示的数据变化时，自动调整此坐标轴的范围。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Set the range for this axis manually. This disables automatic scaling. &lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;手动设置此坐标轴的范围。这会关闭自动缩放。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Manual</source>
        <translation>手动</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Minimum value to display for this axis.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;此坐标轴显示的最小值。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Maximum value to display for this axis.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;此坐标轴显示的最大值。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Inverts the display of this axis. (+y points downward instead of upward)&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;反转此坐标轴的显示方向（+y 朝下而不是朝上）。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Invert Axis</source>
        <translation>反转坐标轴</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Enables mouse interaction (panning, scaling) for this axis.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;允许用鼠标操作此坐标轴（平移、缩放）。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Mouse Enabled</source>
        <translation>启用鼠标</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;When checked, the axis will only auto-scale to data that is visible along the orthogonal axis.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;勾选后，此坐标轴只按另一坐标轴范围内可见的数据自动缩放。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Visible Data Only</source>
        <translation>仅可见数据</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;When checked, the axis will automatically pan to center on the current data, but the scale along this axis will not change.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;勾选后，此坐标轴会自动平移使当前数据居中，但不改变其缩放比例。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Auto Pan Only</source>
        <translation>仅自动平移</translation>
    </message>
</context>
<context>
    <name>FormatEntries</name>
    <message>
        <source>Not installed: {install}</source>
        <translation>未安装：{install}</translation>
    </message>
</context>
<context>
    <name>GpuMemoryForm</name>
    <message>
        <source>In effect: {message}</source>
        <translation>已生效：{message}</translation>
    </message>
    <message>
        <source>Takes effect at next launch: {message}</source>
        <translation>下次启动时生效：{message}</translation>
    </message>
    <message>
        <source>Not applied: {message}</source>
        <translation>未应用：{message}</translation>
    </message>
    <message>
        <source>applied</source>
        <translation>已应用</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>未变</translation>
    </message>
    <message>
        <source>no GPU</source>
        <translation>没有 GPU</translation>
    </message>
    <message>
        <source>needs a restart</source>
        <translation>需要重启</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Grow GPU memory as needed</source>
        <translation>按需增长 GPU 显存</translation>
    </message>
    <message>
        <source>Allocate GPU memory as the run needs it instead of reserving most of it at start. Exclusive with a limit: TensorFlow refuses both on one GPU.</source>
        <translation>按运行的需要分配 GPU 显存，而不是在启动时预留大部分显存。与显存上限互斥：TensorFlow 不允许在同一个 GPU 上同时设置两者。</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不设上限</translation>
    </message>
    <message>
        <source>Cap each GPU at this much memory (64 MiB or more); exclusive with growth</source>
        <translation>将每个 GPU 的显存限制为此值（不少于 64 MiB）；与显存增长互斥</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Limit per GPU</source>
        <translation>每个 GPU 的上限</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU 显存</translation>
    </message>
    <message>
        <source>TensorFlow reserves most of each GPU&apos;s memory when it starts. Growth or a limit leaves room for other programs; TensorFlow cannot do both on one GPU.</source>
        <translation>TensorFlow 启动时会预留每个 GPU 的大部分显存。显存增长或显存上限可为其他程序留出空间；TensorFlow 不能在同一个 GPU 上同时使用两者。</translation>
    </message>
    <message>
        <source>Saved on {host}, in its settings file</source>
        <translation>保存在 {host} 上，在它的设置文件中</translation>
    </message>
    <message>
        <source>Saved in {path}</source>
        <translation>保存在 {path}</translation>
    </message>
    <message>
        <source>{error}. Saving replaces these values.</source>
        <translation>{error}。保存会替换这些值。</translation>
    </message>
    <message>
        <source>Saved setting: {what}.</source>
        <translation>已保存的设置：{what}。</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>Saved setting: {what}. New runs use it.</source>
        <translation>已保存的设置：{what}。新的运行将使用它。</translation>
    </message>
    <message>
        <source>status: {status}</source>
        <translation>状态：{status}</translation>
    </message>
</context>
<context>
    <name>GuiSettings</name>
    <message>
        <source>the last session&apos;s setup could not be read ({reason}); starting from the defaults</source>
        <translation>无法读取上次会话的设置（{reason}）；改用默认设置</translation>
    </message>
    <message>
        <source>the last dataset is gone ({reason}); using digits</source>
        <translation>上次使用的数据集已不存在（{reason}）；改用 digits</translation>
    </message>
    <message>
        <source>the last session&apos;s setup no longer works ({problems}); starting from the defaults</source>
        <translation>上次会话的设置已不再可用（{problems}）；改用默认设置</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>forgot the imported dataset {path}: it is no longer readable</source>
        <translation>已移除导入的数据集 {path}：它已无法读取</translation>
    </message>
</context>
<context>
    <name>HardwareFacts</name>
    <message>
        <source>n/a</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>{family} · compute capability {capability}</source>
        <translation>{family} · 计算能力 {capability}</translation>
    </message>
    <message>
        <source>{generation} · float16 {float16} · bfloat16 {bfloat16}</source>
        <translation>{generation} · float16 {float16} · bfloat16 {bfloat16}</translation>
    </message>
    <message>
        <source>none · float16 no · bfloat16 no</source>
        <translation>无 · float16 否 · bfloat16 否</translation>
    </message>
    <message>
        <source>Tensor Cores</source>
        <translation>Tensor Core</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>{used} of {total} in use</source>
        <translation>已用 {used}，共 {total}</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>驱动</translation>
    </message>
    <message>
        <source>not readable on this OS</source>
        <translation>在此操作系统上无法读取</translation>
    </message>
    <message>
        <source>has {flags}</source>
        <translation>有 {flags}</translation>
    </message>
    <message>
        <source>lacks {flags}</source>
        <translation>缺少 {flags}</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>{logical} logical / {physical} physical cores</source>
        <translation>{logical} 个逻辑核心 / {physical} 个物理核心</translation>
    </message>
    <message>
        <source>{logical} logical cores</source>
        <translation>{logical} 个逻辑核心</translation>
    </message>
    <message>
        <source>{size} RAM</source>
        <translation>{size} 内存</translation>
    </message>
    <message>
        <source>Half-precision flags</source>
        <translation>半精度指令集</translation>
    </message>
    <message>
        <source>off: TensorFlow&apos;s AMX/AVX-512 BF16 kernels are not used</source>
        <translation>关闭：不使用 TensorFlow 的 AMX/AVX-512 BF16 内核</translation>
    </message>
    <message>
        <source>type unknown</source>
        <translation>类型未知</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>{kind}, {cores} cores</source>
        <translation>{kind}，{cores} 个核心</translation>
    </message>
    <message>
        <source>Found</source>
        <translation>发现方式</translation>
    </message>
    <message>
        <source>Build</source>
        <translation>构建</translation>
    </message>
    <message>
        <source>{cuda} · kernels for {capabilities}</source>
        <translation>{cuda} · 内核适用于 {capabilities}</translation>
    </message>
    <message>
        <source>on: float32 matmuls run as TF32 on Ampere and newer</source>
        <translation>开启：在 Ampere 及更新的 GPU 上，float32 矩阵乘法以 TF32 运行</translation>
    </message>
    <message>
        <source>off: float32 is true float32</source>
        <translation>关闭：float32 就是真正的 float32</translation>
    </message>
    <message>
        <source>CPU-only: this TensorFlow cannot use a GPU</source>
        <translation>仅支持 CPU：此 TensorFlow 无法使用 GPU</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>none ({note})</source>
        <translation>无（{note}）</translation>
    </message>
    <message>
        <source>none: TensorFlow sees no GPU ({note})</source>
        <translation>无：TensorFlow 未发现 GPU（{note}）</translation>
    </message>
    <message>
        <source>none: TensorFlow sees no GPU</source>
        <translation>无：TensorFlow 未发现 GPU</translation>
    </message>
    <message>
        <source>{note}: memory use and driver not shown</source>
        <translation>{note}：无法显示显存用量和驱动</translation>
    </message>
    <message>
        <source>Timed forward + backward with XLA on; float32 ran as {baseline} · stopped early</source>
        <translation>计时前向 + 反向传播，XLA 开启；float32 实际以 {baseline} 运行 · 已提前停止</translation>
    </message>
    <message>
        <source>Timed forward + backward with XLA off; float32 ran as {baseline} · stopped early</source>
        <translation>计时前向 + 反向传播，XLA 关闭；float32 实际以 {baseline} 运行 · 已提前停止</translation>
    </message>
    <message>
        <source>Timed forward + backward with XLA on; float32 ran as {baseline}</source>
        <translation>计时前向 + 反向传播，XLA 开启；float32 实际以 {baseline} 运行</translation>
    </message>
    <message>
        <source>Timed forward + backward with XLA off; float32 ran as {baseline}</source>
        <translation>计时前向 + 反向传播，XLA 关闭；float32 实际以 {baseline} 运行</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Your model timed here: {model} at batch {batch} on {data}, {seconds} s a precision after a {warmup}-step warm-up; float32 ran as {baseline}</source>
        <translation>你的模型在本机的计时：{model}，批次大小 {batch}，使用{data}，{warmup} 步预热之后每种精度计时 {seconds} 秒；float32 以 {baseline} 运行</translation>
    </message>
    <message>
        <source>stopped early</source>
        <translation>已提前停止</translation>
    </message>
    <message>
        <source>examples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>{precision} failed: {reason}</source>
        <translation>{precision} 失败：{reason}</translation>
    </message>
</context>
<context>
    <name>HardwareJobs</name>
    <message>
        <source>Loading TensorFlow…</source>
        <translation>正在加载 TensorFlow…</translation>
    </message>
    <message>
        <source>TensorFlow could not load: {reason}</source>
        <translation>TensorFlow 无法加载：{reason}</translation>
    </message>
    <message>
        <source>Measuring…</source>
        <translation>正在测速…</translation>
    </message>
    <message>
        <source>Checking the hardware…</source>
        <translation>正在检测硬件…</translation>
    </message>
    <message>
        <source>measuring float32, float16 and bfloat16 kernels ({seconds} s a case), then {model} at batch {batch} under each precision ({model_seconds} s each)</source>
        <translation>正在为 float32、float16 和 bfloat16 计算内核测速（每项 {seconds} 秒），然后在每种精度下为 {model}（批次大小 {batch}）计时（每种 {model_seconds} 秒）</translation>
    </message>
    <message>
        <source>the setup changed: the measurement of {model} at batch {batch} no longer applies, so the verdicts are predicted again</source>
        <translation>设置已更改：{model}（批次大小 {batch}）的实测结果不再适用，结论重新采用预测</translation>
    </message>
    <message>
        <source>recommended here: {policy} on {device}: {reason}</source>
        <translation>本机推荐：在 {device} 上使用 {policy}：{reason}</translation>
    </message>
    <message>
        <source>measurement stopped: verdicts use the cases that finished</source>
        <translation>测速已停止：结论只依据已完成的测试项</translation>
    </message>
    <message>
        <source>GPU memory: {message}</source>
        <translation>GPU 显存：{message}</translation>
    </message>
</context>
<context>
    <name>HardwarePanel</name>
    <message>
        <source>Not while a training run is going: measuring now would distort both the measurement and the run</source>
        <translation>训练运行期间不可用：此时测量会同时干扰测量结果和运行</translation>
    </message>
    <message>
        <source>Detect the devices again (quick; no measurement)</source>
        <translation>重新检测设备（很快；不做测量）</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>重新检测</translation>
    </message>
    <message>
        <source>Measure</source>
        <translation>测量</translation>
    </message>
    <message>
        <source> s/case</source>
        <translation> 秒/项</translation>
    </message>
    <message>
        <source>Time matmul and conv in float32, float16 and bfloat16 on every device, then the setup&apos;s model under each precision on this machine (about 20-30 s); the verdicts then follow what was measured</source>
        <translation>在每个设备上以 float32、float16 和 bfloat16 为 matmul 和 conv 计时，然后在本机上以每种精度为当前设置的模型计时（约 20-30 秒）；之后的结论依据测量结果</translation>
    </message>
    <message>
        <source>Seconds timed for each kernel and precision (the setup&apos;s model: four times as long a precision): longer is steadier, 0.5 s is usually enough</source>
        <translation>每个内核和精度的计时秒数（当前设置的模型：每种精度计时其四倍）：越长越稳定，通常 0.5 秒就够了</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>End the measurement now; verdicts use what was measured</source>
        <translation>立即结束测量；结论采用已测得的结果</translation>
    </message>
    <message>
        <source>No hardware check yet.</source>
        <translation>尚未进行硬件检测。</translation>
    </message>
    <message>
        <source>The devices and the precision advice appear here once TensorFlow has loaded.</source>
        <translation>TensorFlow 加载完成后，设备和精度建议将显示在这里。</translation>
    </message>
    <message>
        <source>The hardware check failed: {message}</source>
        <translation>硬件检测失败：{message}</translation>
    </message>
    <message>
        <source>No hardware check yet: press Check again to retry.</source>
        <translation>尚未完成硬件检测：请按“重新检测”重试。</translation>
    </message>
    <message>
        <source>Measuring…</source>
        <translation>正在测量…</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检测…</translation>
    </message>
    <message>
        <source>finishing</source>
        <translation>即将完成</translation>
    </message>
    <message>
        <source>Measuring {case}</source>
        <translation>正在测量 {case}</translation>
    </message>
    <message>
        <source>{what} · {done} of {total}</source>
        <translation>{what} · {done}/{total}</translation>
    </message>
    <message>
        <source>Checking the hardware…</source>
        <translation>正在检测硬件…</translation>
    </message>
    <message>
        <source>Starting the measurement…</source>
        <translation>正在开始测量…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
</context>
<context>
    <name>HelpDialogs</name>
    <message>
        <source>
&lt;h2&gt;What mixed precision does&lt;/h2&gt;
&lt;p&gt;Mixed precision runs most of a model&apos;s math in a 16-bit type while keeping the
model&apos;s weights in float32. Keras calls this a &lt;i&gt;dtype policy&lt;/i&gt;:&lt;/p&gt;
&lt;ul&gt;
&lt;li&gt;&lt;b&gt;float32&lt;/b&gt;: everything in 32-bit floats. The reference for accuracy.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;mixed_float16&lt;/b&gt;: layers compute in float16, variables stay float32. On NVIDIA
GPUs with Tensor Cores (compute capability 7.0 and newer: V100, T4, RTX 20xx and later,
A100, H100) matrix multiplies and convolutions run several times faster, and activations
take half the memory.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;mixed_bfloat16&lt;/b&gt;: the same with bfloat16, which has float32&apos;s exponent range.
Fast on TPUs and on NVIDIA GPUs from Ampere (compute capability 8.0) on.&lt;/li&gt;
&lt;/ul&gt;
&lt;h3&gt;Why the output stays float32&lt;/h3&gt;
&lt;p&gt;The last layer (the softmax) and the loss compute in float32, so the probabilities and
the loss are exact; the layer table in the setup panel highlights it.&lt;/p&gt;
&lt;h3&gt;Loss scaling (float16 only)&lt;/h3&gt;
&lt;p&gt;float16 cannot represent numbers below about 6e-8, so small gradients would
underflow to zero. Loss scaling multiplies the loss by a large factor (32768 by default)
before the backward pass and divides the gradients by it afterwards. &lt;b&gt;Dynamic&lt;/b&gt;
scaling halves the factor and skips the step when a gradient overflows to infinity, and
doubles it again after a run of good steps: the loss-scale chart shows it, with skipped
steps marked. bfloat16 needs no loss scaling.&lt;/p&gt;
&lt;h3&gt;When it does not help&lt;/h3&gt;
&lt;ul&gt;
&lt;li&gt;On a CPU without half-precision math, or a GPU without Tensor Cores, float16 is
often &lt;i&gt;slower&lt;/i&gt; than float32: the hardware check says which is which, and Measure
times it on this machine.&lt;/li&gt;
&lt;li&gt;A tiny model or an input pipeline that cannot keep up leaves the device waiting:
then no precision makes training faster.&lt;/li&gt;
&lt;li&gt;Sizes that are multiples of 8 (units, channels, batch) let Tensor Cores work.&lt;/li&gt;
&lt;/ul&gt;
&lt;h3&gt;Is it worth it?&lt;/h3&gt;
&lt;p&gt;Tick &lt;b&gt;Compare with float32&lt;/b&gt;: mpstudio trains float32 first, then the mixed
run from the same initial weights and data order, and overlays both in the charts, so
speed and accuracy compare like with like. More than one trial a side gives a median
and a range. The Comparison card then gives the verdict: worth it when the mixed run is
more than 5% faster and its validation accuracy is within 0.5 percentage points of
float32. On Ampere and newer GPUs the baseline runs TensorFlow&apos;s default TF32 matmuls
unless you choose strict float32, and is labelled with what it ran. Every run stays in
History, where two runs can be compared again and exported as a report.&lt;/p&gt;
</source>
        <translation>
&lt;h2&gt;混合精度的作用&lt;/h2&gt;
&lt;p&gt;混合精度让模型的大部分计算以 16 位类型进行，同时把模型的权重保持为 float32。Keras 称之为 &lt;i&gt;dtype 策略&lt;/i&gt;（精度策略）：&lt;/p&gt;
&lt;ul&gt;
&lt;li&gt;&lt;b&gt;float32&lt;/b&gt;：全部使用 32 位浮点数，是准确率的参照。&lt;/li&gt;
&lt;li&gt;&lt;b&gt;mixed_float16&lt;/b&gt;：各层以 float16 计算，变量保持 float32。在带 Tensor Core 的 NVIDIA GPU 上（计算能力 7.0 及以上：V100、T4、RTX 20 系列及更新型号、A100、H100），矩阵乘法和卷积快数倍，激活值占用的显存减半。&lt;/li&gt;
&lt;li&gt;&lt;b&gt;mixed_bfloat16&lt;/b&gt;：同上，但使用 bfloat16，它的指数范围与 float32 相同。在 TPU 上以及从 Ampere（计算能力 8.0）起的 NVIDIA GPU 上速度很快。&lt;/li&gt;
&lt;/ul&gt;
&lt;h3&gt;为什么输出保持 float32&lt;/h3&gt;
&lt;p&gt;最后一层（softmax）和损失以 float32 计算，因此概率和损失是精确的；设置面板中的层表会突出显示这一层。&lt;/p&gt;
&lt;h3&gt;损失缩放（仅 float16）&lt;/h3&gt;
&lt;p&gt;float16 无法表示小于约 6e-8 的数，较小的梯度会因此下溢为零。损失缩放在反向传播之前把损失乘以一个较大的因子（默认 32768），之后再把梯度除以该因子。&lt;b&gt;动态&lt;/b&gt;损失缩放在梯度溢出为无穷大时把因子减半并跳过这一步，在连续若干步正常之后再把它加倍：损失缩放图表会显示这一过程，并标出被跳过的步。bfloat16 不需要损失缩放。&lt;/p&gt;
&lt;h3&gt;什么时候没有帮助&lt;/h3&gt;
&lt;ul&gt;
&lt;li&gt;在没有半精度运算的 CPU 上，或在没有 Tensor Core 的 GPU 上，float16 往往比 float32
&lt;i&gt;更慢&lt;/i&gt;：硬件检测会说明是哪种情况，“各精度测速”会在本机上实际计时。&lt;/li&gt;
&lt;li&gt;模型太小，或输入数据管道跟不上，设备就会空等：这时任何精度都不能让训练更快。&lt;/li&gt;
&lt;li&gt;尺寸（单元数、通道数、批次大小）为 8 的倍数时，Tensor Core 才能发挥作用。&lt;/li&gt;
&lt;/ul&gt;
&lt;h3&gt;值得吗？&lt;/h3&gt;
&lt;p&gt;勾选&lt;b&gt;与 float32 对比&lt;/b&gt;：mpstudio 先训练 float32，再从相同的初始权重和数据顺序训练混合精度，并在图表中叠加显示两者，因此速度和准确率是在同等条件下比较的。每一方进行多次试验时，会给出中位数和范围。随后“对比”卡片给出结论：混合精度运行快 5% 以上，且其验证准确率与 float32 相差不超过 0.5 个百分点时，就值得使用。在 Ampere 及更新的 GPU 上，除非选择严格 float32，基线使用 TensorFlow 默认的 TF32 矩阵乘法，并标明它实际运行的是什么。每次运行都保存在“历史记录”中，可以在那里再次对比两次运行并导出报告。&lt;/p&gt;
</translation>
    </message>
    <message>
        <source>What mixed precision does</source>
        <translation>混合精度的作用</translation>
    </message>
    <message>
        <source>Logs</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Run history</source>
        <translation>运行历史记录</translation>
    </message>
    <message>
        <source>Downloaded datasets</source>
        <translation>下载的数据集</translation>
    </message>
    <message>
        <source>TensorFlow is still loading.</source>
        <translation>TensorFlow 仍在加载。</translation>
    </message>
    <message>
        <source>A workbench for mixed-precision training with TensorFlow: see what float16 and bfloat16 do on your hardware.</source>
        <translation>用 TensorFlow 进行混合精度训练的工作台：看看 float16 和 bfloat16 在你的硬件上能做什么。</translation>
    </message>
    <message>
        <source>Folders</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Versions</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Licensed under the {license}.</source>
        <translation>本软件依据 {license}授权。</translation>
    </message>
    <message>
        <source>Apache License 2.0</source>
        <translation>Apache 许可证 2.0 版</translation>
    </message>
    <message>
        <source>About mpstudio</source>
        <translation>关于 mpstudio</translation>
    </message>
</context>
<context>
    <name>HistoryActions</name>
    <message>
        <source>HTML report (*.html)</source>
        <translation>HTML 报告 (*.html)</translation>
    </message>
    <message>
        <source>Benchmark bundle (*.zip)</source>
        <translation>基准测试包 (*.zip)</translation>
    </message>
    <message>
        <source>#{id} {label} ({dataset} / {template})</source>
        <translation>#{id} {label}（{dataset} / {template}）</translation>
    </message>
    <message>
        <source>run history unavailable: {error}</source>
        <translation>运行历史记录不可用：{error}</translation>
    </message>
    <message>
        <source>{n} run(s) from an earlier session ended with the app ({ids}): marked interrupted, their metrics kept in History</source>
        <translation>上次会话中有 {n} 次运行随应用一起结束（{ids}）：已标记为被中断，其指标保留在历史记录中</translation>
    </message>
    <message>
        <source>A run is in progress: its charts are live. Plot or compare runs from History when it has ended.</source>
        <translation>正在运行：图表显示的是实时数据。请在运行结束后再从历史记录中绘制或对比运行。</translation>
    </message>
    <message>
        <source>Cannot plot run #{id}: {error}</source>
        <translation>无法绘制运行 #{id}：{error}</translation>
    </message>
    <message>
        <source>Showing {run} from History: {status}</source>
        <translation>正在显示历史记录中的 {run}：{status}</translation>
    </message>
    <message>
        <source>Cannot compare #{a} and #{b}: {error}</source>
        <translation>无法对比 #{a} 和 #{b}：{error}</translation>
    </message>
    <message>
        <source>Comparing {baseline} with {mixed}</source>
        <translation>对比 {baseline} 与 {mixed}</translation>
    </message>
    <message>
        <source>Cannot re-run #{id}: {error}</source>
        <translation>无法重新运行 #{id}：{error}</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>re-running the spec of #{id}</source>
        <translation>按 #{id} 的配置重新运行</translation>
    </message>
    <message>
        <source>deleted {n} run(s) from History: {ids}</source>
        <translation>已从历史记录中删除 {n} 次运行：{ids}</translation>
    </message>
    <message>
        <source>Export the comparison report</source>
        <translation>导出对比报告</translation>
    </message>
    <message>
        <source>There is no comparison to report: compare two runs first</source>
        <translation>没有可生成报告的对比：请先对比两次运行</translation>
    </message>
    <message>
        <source>Export report failed, nothing was written: {error}</source>
        <translation>导出报告失败，未写入任何文件：{error}</translation>
    </message>
    <message>
        <source>export report failed: {error}</source>
        <translation>导出报告失败：{error}</translation>
    </message>
    <message>
        <source>exported the comparison report {html} and its metrics {csv}</source>
        <translation>已导出对比报告 {html} 及其指标 {csv}</translation>
    </message>
    <message>
        <source>exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
    <message>
        <source>Export &amp;benchmark bundle…</source>
        <translation>导出基准测试包(&amp;B)…</translation>
    </message>
    <message>
        <source>Save the comparison as one zip: spec, seed, initial-weights hashes, versions, hardware, metrics and verdict; `mpstudio replay` re-runs it</source>
        <translation>将对比保存为一个压缩包：运行配置、随机种子、初始权重哈希、版本、硬件、指标和结论；`mpstudio replay` 可重新运行它</translation>
    </message>
    <message>
        <source>Export benchmark bundle…</source>
        <translation>导出基准测试包…</translation>
    </message>
    <message>
        <source>Save run #{id} (with the rest of its comparison) as a benchmark bundle that `mpstudio replay` re-runs</source>
        <translation>将运行 #{id}（连同其所属对比的其余运行）保存为基准测试包，可用 `mpstudio replay` 重新运行</translation>
    </message>
    <message>
        <source>There is no comparison to bundle: compare two runs or pick one in History first</source>
        <translation>没有可打包的对比：请先对比两次运行，或在历史记录中选择一次运行</translation>
    </message>
    <message>
        <source>Export the benchmark bundle</source>
        <translation>导出基准测试包</translation>
    </message>
    <message>
        <source>the run history is not open</source>
        <translation>运行历史记录未打开</translation>
    </message>
    <message>
        <source>Export benchmark bundle failed, nothing was written: {error}</source>
        <translation>导出基准测试包失败，未写入任何内容：{error}</translation>
    </message>
    <message>
        <source>exported the benchmark bundle {path} (runs {ids}); replay it with: mpstudio replay {path}</source>
        <translation>已导出基准测试包 {path}（运行 {ids}）；重放命令：mpstudio replay {path}</translation>
    </message>
</context>
<context>
    <name>HistoryMirror</name>
    <message>
        <source>Whose runs: this computer&apos;s, or a server&apos;s (the window&apos;s copy of its history, readable when the server is not)</source>
        <translation>显示哪台机器的运行：本机的，或某台服务器的（窗口保存的该服务器历史记录副本，服务器连不上时也能查看）</translation>
    </message>
    <message>
        <source>History — {host}</source>
        <translation>历史记录 — {host}</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>the copy of {host}&apos;s history could not be written: {error}</source>
        <translation>无法写入 {host} 历史记录的副本：{error}</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <source>Filter: dataset, template, precision, status…</source>
        <translation>筛选：数据集、模型模板、精度、状态…</translation>
    </message>
    <message>
        <source>A run still being trained cannot be deleted: stop it first</source>
        <translation>仍在训练的运行不能删除：请先停止它</translation>
    </message>
    <message>
        <source>{n} run</source>
        <translation>{n} 次运行</translation>
    </message>
    <message>
        <source>{n} runs</source>
        <translation>{n} 次运行</translation>
    </message>
    <message>
        <source>Words to find in the dataset, template, precision or status; a number finds that run id</source>
        <translation>在数据集、模型模板、精度或状态中查找的词；输入数字则查找该运行编号</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Plot</source>
        <translation>绘制</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Re-run</source>
        <translation>重新运行</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>No run history.</source>
        <translation>没有运行历史记录。</translation>
    </message>
    <message>
        <source>Cannot read the run history {path}: {error}</source>
        <translation>无法读取运行历史记录 {path}：{error}</translation>
    </message>
    <message>
        <source>Delete run #{id}? Its metrics are removed from the history; a saved model stays on disk.</source>
        <translation>删除运行 #{id}？其指标将从历史记录中移除；已保存的模型仍保留在磁盘上。</translation>
    </message>
    <message>
        <source>Delete {n} runs? Their metrics are removed from the history; saved models stay on disk.</source>
        <translation>删除 {n} 次运行？它们的指标将从历史记录中移除；已保存的模型仍保留在磁盘上。</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <source>{shown} of {total} run shown</source>
        <translation>显示 {shown} 次，共 {total} 次运行</translation>
    </message>
    <message>
        <source>{shown} of {total} runs shown</source>
        <translation>显示 {shown} 次，共 {total} 次运行</translation>
    </message>
    <message>
        <source>Plot run #{id}&apos;s curves on the Charts tab (or double-click it)</source>
        <translation>在“图表”页中绘制运行 #{id} 的曲线（也可双击该行）</translation>
    </message>
    <message>
        <source>Select one run to plot its curves</source>
        <translation>选择一次运行以绘制其曲线</translation>
    </message>
    <message>
        <source>Set up the form from run #{id}&apos;s settings, ready to run again</source>
        <translation>按运行 #{id} 的设置填写表单，准备再次运行</translation>
    </message>
    <message>
        <source>Select one run to run it again with its settings</source>
        <translation>选择一次运行，按其设置再次运行</translation>
    </message>
    <message>
        <source>The models of these runs are on {host}: connect to it to export them</source>
        <translation>这些运行的模型在 {host} 上：连接到它才能导出</translation>
    </message>
    <message>
        <source>Export run #{id}&apos;s trained model to Keras, SavedModel, TFLite or ONNX</source>
        <translation>将运行 #{id} 训练好的模型导出为 Keras、SavedModel、TFLite 或 ONNX</translation>
    </message>
    <message>
        <source>Select one run to export its trained model</source>
        <translation>选择一次运行以导出其训练好的模型</translation>
    </message>
    <message>
        <source>Build the comparison card of the two runs (with the other trials of their comparison, if any)</source>
        <translation>生成这两次运行的对比卡片（如有，包括其对比中的其他试验）</translation>
    </message>
    <message>
        <source>Select exactly two runs to compare ({n} selected)</source>
        <translation>请恰好选择两次运行进行对比（已选择 {n} 次）</translation>
    </message>
    <message>
        <source>Delete the 1 run selected from the history</source>
        <translation>从历史记录中删除所选的 1 次运行</translation>
    </message>
    <message>
        <source>Delete the {n} runs selected from the history</source>
        <translation>从历史记录中删除所选的 {n} 次运行</translation>
    </message>
    <message>
        <source>Select runs to delete them from the history</source>
        <translation>选择要从历史记录中删除的运行</translation>
    </message>
    <message>
        <source>Could not delete the runs: {error}</source>
        <translation>无法删除这些运行：{error}</translation>
    </message>
</context>
<context>
    <name>HistoryTableModel</name>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Template</source>
        <translation>模型模板</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Examples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>Val accuracy</source>
        <translation>验证准确率</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>diverged</source>
        <translation>发散</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>被中断</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Being trained now (or by another process sharing this history file)</source>
        <translation>正在训练（或由共用此历史记录文件的另一个进程训练）</translation>
    </message>
    <message>
        <source>The app or process ended during the run; the metrics up to then are kept</source>
        <translation>应用或进程在运行期间结束；保留了到那时为止的指标</translation>
    </message>
    <message>
        <source>Stopped by the user; the figures cover the steps it ran</source>
        <translation>被用户停止；数值只涵盖已运行的步</translation>
    </message>
    <message>
        <source>The loss became NaN or infinite</source>
        <translation>损失变成了 NaN 或无穷大</translation>
    </message>
    <message>
        <source>The run ended with an error</source>
        <translation>运行因错误而结束</translation>
    </message>
    <message>
        <source>#{id} {label} ({dataset} / {template}), started {when}</source>
        <translation>#{id} {label}（{dataset} / {template}），开始于 {when}</translation>
    </message>
    <message>
        <source>{status}: {meaning}</source>
        <translation>{status}：{meaning}</translation>
    </message>
    <message>
        <source>Select it with a run of the other side and click Compare.</source>
        <translation>将它与另一侧的一次运行一起选中，然后点击“对比”。</translation>
    </message>
    <message>
        <source>A single run (not part of a float32 comparison)</source>
        <translation>单次运行（不属于 float32 对比）</translation>
    </message>
    <message>
        <source>Comparison {comparison}: the float32 side, trial {trial} of {trials}; its runs still in the history: {ids}</source>
        <translation>对比 {comparison}：float32 一侧，第 {trial} 次试验（共 {trials} 次）；仍在历史记录中的运行：{ids}</translation>
    </message>
    <message>
        <source>Comparison {comparison}: the float32 side; its runs still in the history: {ids}</source>
        <translation>对比 {comparison}：float32 一侧；仍在历史记录中的运行：{ids}</translation>
    </message>
    <message>
        <source>Comparison {comparison}: the mixed side, trial {trial} of {trials}; its runs still in the history: {ids}</source>
        <translation>对比 {comparison}：混合精度一侧，第 {trial} 次试验（共 {trials} 次）；仍在历史记录中的运行：{ids}</translation>
    </message>
    <message>
        <source>Comparison {comparison}: the mixed side; its runs still in the history: {ids}</source>
        <translation>对比 {comparison}：混合精度一侧；仍在历史记录中的运行：{ids}</translation>
    </message>
</context>
<context>
    <name>HoverReadout</name>
    <message>
        <source>Hover a chart to read its values.</source>
        <translation>将鼠标悬停在图表上即可读取数值。</translation>
    </message>
    <message>
        <source> @ step {step}</source>
        <translation>（第 {step} 步）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>step {step}</source>
        <translation>第 {step} 步</translation>
    </message>
</context>
<context>
    <name>LayerTable</name>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>variables</source>
        <translation>变量</translation>
    </message>
    <message>
        <source>params</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Tensor Cores</source>
        <translation>Tensor Core</translation>
    </message>
    <message>
        <source>The layer&apos;s name; its tip gives its type and parameters. Right-click the header to show or hide columns.</source>
        <translation>层的名称；悬停提示中有它的类型和参数。右键单击表头可显示或隐藏列。</translation>
    </message>
    <message>
        <source>The Keras layer class</source>
        <translation>Keras 层的类</translation>
    </message>
    <message>
        <source>The dtype the layer computes in: float16 or bfloat16 is half precision, the part mixed precision speeds up</source>
        <translation>该层计算所用的 dtype：float16 或 bfloat16 即半精度，也就是混合精度加速的部分</translation>
    </message>
    <message>
        <source>The dtype the layer keeps its weights in: float32 under every mixed policy, so small updates are not lost</source>
        <translation>该层保存权重所用的 dtype：在每种混合精度策略下都是 float32，因此微小的更新不会丢失</translation>
    </message>
    <message>
        <source>The layer&apos;s parameters (weights)</source>
        <translation>该层的参数（权重）数</translation>
    </message>
    <message>
        <source>Whether the layer&apos;s sizes fit Tensor Cores under half precision, and what to change where they do not</source>
        <translation>在半精度下该层的尺寸是否适合 Tensor Core，以及不适合时应改什么</translation>
    </message>
    <message>
        <source>{name} ({kind}): {params} parameters</source>
        <translation>{name}（{kind}）：{params} 个参数</translation>
    </message>
    <message>
        <source>The output layer computes in float32: the softmax and the loss stay exact even when the layers before it run in half precision.</source>
        <translation>输出层以 float32 计算：即使之前的层以半精度运行，softmax 和损失也保持精确。</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no: {fix}</source>
        <translation>否：{fix}</translation>
    </message>
    <message>
        <source>&lt;b&gt;{template}&lt;/b&gt;: {params} parameters · under &lt;b&gt;{policy}&lt;/b&gt; {half} of {layers} layers compute in half precision, variables stay float32</source>
        <translation>&lt;b&gt;{template}&lt;/b&gt;：{params} 个参数 · 在 &lt;b&gt;{policy}&lt;/b&gt; 下，{layers} 层中有 {half} 层以半精度计算，变量保持 float32</translation>
    </message>
    <message>
        <source>&lt;b&gt;{template}&lt;/b&gt;: {params} parameters · under &lt;b&gt;{policy}&lt;/b&gt; every layer computes in float32</source>
        <translation>&lt;b&gt;{template}&lt;/b&gt;：{params} 个参数 · 在 &lt;b&gt;{policy}&lt;/b&gt; 下，每一层都以 float32 计算</translation>
    </message>
    <message>
        <source>&lt;br&gt;{count} layers run float8 matmuls (Dense/EinsumDense, marked + float8)</source>
        <translation>&lt;br&gt;{count} 个层运行 float8 矩阵乘法（Dense/EinsumDense，标记为 + float8）</translation>
    </message>
    <message>
        <source>&lt;br&gt;1 layer misses Tensor Cores: see the column</source>
        <translation>&lt;br&gt;有 1 层未能用上 Tensor Core：见该列</translation>
    </message>
    <message>
        <source>&lt;br&gt;{count} layers miss Tensor Cores: see the column</source>
        <translation>&lt;br&gt;有 {count} 层未能用上 Tensor Core：见该列</translation>
    </message>
    <message>
        <source>Shown for its own input: {reason}</source>
        <translation>按其自身输入显示：{reason}</translation>
    </message>
    <message>
        <source>Device memory estimate at batch {batch}: &lt;b&gt;{policy}&lt;/b&gt; {total}</source>
        <translation>批次大小 {batch} 时的设备内存估计：&lt;b&gt;{policy}&lt;/b&gt; {total}</translation>
    </message>
    <message>
        <source> · {policy} {total} ({percent}% less under {chosen})</source>
        <translation> · {policy} {total}（{chosen} 下少 {percent}%）</translation>
    </message>
    <message>
        <source> · {policy} {total}</source>
        <translation> · {policy} {total}</translation>
    </message>
    <message>
        <source>{policy}: weights {weights} + optimizer {optimizer} ({optimizer_name}) + gradients {gradients} + activations {activations} + loss-scale state {loss_scale}</source>
        <translation>{policy}：权重 {weights} + 优化器 {optimizer}（{optimizer_name}）+ 梯度 {gradients} + 激活值 {activations} + 损失缩放状态 {loss_scale}</translation>
    </message>
    <message>
        <source>Per device. Each layer&apos;s output is kept once for the backward pass; work inside a layer (attention scores, recurrent steps, dropout masks), the input pipeline and the framework&apos;s own buffers are not counted. After a run the summary and the comparison card set it against the measured peak where the device reports one.</source>
        <translation>按每个设备计。每层的输出为反向传播保留一份；层内部的工作（注意力分数、循环步、dropout 掩码）、输入流水线和框架自身的缓冲区不计入。运行结束后，若设备报告峰值显存，运行摘要和对比卡片会把估计与实测峰值放在一起。</translation>
    </message>
    <message>
        <source>Model preview appears when TensorFlow has loaded.</source>
        <translation>TensorFlow 加载完成后显示模型预览。</translation>
    </message>
    <message>
        <source>Measured: {text}</source>
        <translation>实测：{text}</translation>
    </message>
    <message>
        <source>Timed on this machine by the Hardware tab&apos;s Measure: a few seconds of this model under each precision, as a comparison times it</source>
        <translation>由“硬件”标签页的“测量”在本机计时：按对比运行的计时方式，对此模型在每种精度下计时几秒</translation>
    </message>
    <message>
        <source>Predicted: {text}</source>
        <translation>预测：{text}</translation>
    </message>
    <message>
        <source>Predicted before the run from this device&apos;s rates and the model&apos;s layers; the comparison measures it</source>
        <translation>运行前根据本设备的速率和模型的各层预测；对比会实测它</translation>
    </message>
</context>
<context>
    <name>LiveCharts</name>
    <message>
        <source>no loss scaling in this run</source>
        <translation>此运行未使用损失缩放</translation>
    </message>
    <message>
        <source>no loss scaling in these runs</source>
        <translation>这些运行未使用损失缩放</translation>
    </message>
    <message>
        <source> (no loss scaling)</source>
        <translation>（无损失缩放）</translation>
    </message>
    <message>
        <source>No run yet.

Pick a dataset, a template and a precision on the left, then click Run (Ctrl+R): the loss, the loss scale, the throughput and the accuracy stream here as it trains. With Compare with float32 ticked, a float32 run trains first and the Comparison tab then sets both side by side.</source>
        <translation>还没有运行。

在左侧选择数据集、模型模板和精度，然后点击“运行”（Ctrl+R）：训练过程中，损失、损失缩放因子、吞吐量和准确率会实时显示在这里。勾选“与 float32 对比”时，先训练一次 float32 运行，随后“对比”页将两者并排展示。</translation>
    </message>
    <message>
        <source>Starting: the charts appear with the run&apos;s first step.</source>
        <translation>正在启动：运行完成第一步后显示图表。</translation>
    </message>
    <message>
        <source>The run ended before its first step: nothing to chart.</source>
        <translation>运行在第一步之前就结束了：没有可绘制的数据。</translation>
    </message>
</context>
<context>
    <name>LogPanel</name>
    <message>
        <source>warning: </source>
        <translation>警告：</translation>
    </message>
    <message>
        <source>error: </source>
        <translation>错误：</translation>
    </message>
</context>
<context>
    <name>LossScalingForm</name>
    <message>
        <source>dynamic</source>
        <translation>动态</translation>
    </message>
    <message>
        <source>fixed factor</source>
        <translation>固定因子</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Not used under float32: float32 gradients do not underflow.</source>
        <translation>float32 下不使用：float32 梯度不会下溢。</translation>
    </message>
    <message>
        <source>Not needed under mixed_bfloat16: bfloat16 keeps float32&apos;s exponent range, so small gradients do not underflow.</source>
        <translation>mixed_bfloat16 下不需要：bfloat16 保留了 float32 的指数范围，小梯度不会下溢。</translation>
    </message>
    <message>
        <source>Not needed under float8: its layers keep their own per-tensor scales, and the rest computes in bfloat16, which keeps float32&apos;s exponent range.</source>
        <translation>float8 下不需要：其层自带逐张量缩放因子，其余部分以 bfloat16 计算，保留 float32 的指数范围。</translation>
    </message>
    <message>
        <source>Scales the loss up so small float16 gradients survive; an overflowing step is skipped and the scale halved.</source>
        <translation>放大损失，使较小的 float16 梯度得以保留；溢出的步会被跳过，缩放因子减半。</translation>
    </message>
    <message>
        <source>A constant scale: no overflow detection, so a step that overflows diverges.</source>
        <translation>固定的缩放因子：不检测溢出，溢出的步会导致发散。</translation>
    </message>
    <message>
        <source>No scaling: small float16 gradients can underflow to zero and training may stall.</source>
        <translation>不缩放：较小的 float16 梯度可能下溢为零，训练可能停滞。</translation>
    </message>
    <message>
        <source>The first loss scale; 32768 (2^15) is Keras&apos; default.</source>
        <translation>初始损失缩放因子；32768 (2^15) 是 Keras 的默认值。</translation>
    </message>
    <message>
        <source>Finite steps in a row before the scale doubles.</source>
        <translation>缩放因子翻倍前需连续出现的有限值步数。</translation>
    </message>
    <message>
        <source>Initial scale</source>
        <translation>初始缩放因子</translation>
    </message>
    <message>
        <source>Growth steps</source>
        <translation>增长步数</translation>
    </message>
    <message>
        <source>Scale numbers</source>
        <translation>缩放参数</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Factor</source>
        <translation>因子</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>TensorFlow is still loading</source>
        <translation>TensorFlow 仍在加载</translation>
    </message>
    <message>
        <source>TensorFlow could not load</source>
        <translation>TensorFlow 无法加载</translation>
    </message>
    <message>
        <source>Not connected to the engine&apos;s server</source>
        <translation>未连接到引擎所在的服务器</translation>
    </message>
    <message>
        <source>A run is in progress</source>
        <translation>有运行正在进行</translation>
    </message>
    <message>
        <source>The hardware measurement is running</source>
        <translation>硬件测速正在进行</translation>
    </message>
    <message>
        <source>The training check is running</source>
        <translation>训练检查正在进行</translation>
    </message>
    <message>
        <source>The batch-size finder is running</source>
        <translation>批次大小查找正在运行</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <source>Loading TensorFlow…</source>
        <translation>正在加载 TensorFlow…</translation>
    </message>
    <message>
        <source>device: detecting…</source>
        <translation>设备：检测中…</translation>
    </message>
    <message>
        <source>device: {device}</source>
        <translation>设备：{device}</translation>
    </message>
    <message>
        <source>could not open {folder}: open it in a file manager</source>
        <translation>无法打开 {folder}：请在文件管理器中打开它</translation>
    </message>
    <message>
        <source>{reason}: wait for it to end (or stop it)</source>
        <translation>{reason}：请等待它结束（或将其停止）</translation>
    </message>
    <message>
        <source>device: not connected</source>
        <translation>设备：未连接</translation>
    </message>
    <message>
        <source>the run has not stopped yet (tracing or a long step): Stop now ends the engine process</source>
        <translation>运行尚未停止（正在追踪或某一步耗时很长）：“立即停止”会结束引擎进程</translation>
    </message>
    <message>
        <source>Stop the run and quit?</source>
        <translation>停止运行并退出？</translation>
    </message>
    <message>
        <source>A run is in progress. Stop it and quit mpstudio?</source>
        <translation>有运行正在进行。要停止它并退出 mpstudio 吗？</translation>
    </message>
    <message>
        <source>Leave the work running on {host}?</source>
        <translation>让 {host} 上的工作继续运行吗？</translation>
    </message>
    <message>
        <source>The engine on {host} is running work.</source>
        <translation>{host} 上的引擎正在运行工作。</translation>
    </message>
    <message>
        <source>Left running, it goes on there and its runs reach {host}&apos;s History; connect again to see them live.</source>
        <translation>若让它继续运行，它会在那里继续，其中的运行会进入 {host} 的历史记录；再次连接即可实时查看。</translation>
    </message>
    <message>
        <source>Leave it running and quit</source>
        <translation>让它继续运行并退出</translation>
    </message>
    <message>
        <source>Stop it and quit</source>
        <translation>停止它并退出</translation>
    </message>
    <message>
        <source>stopping before closing…</source>
        <translation>正在停止，随后关闭…</translation>
    </message>
    <message>
        <source>mpstudio — mixed-precision workbench</source>
        <translation>mpstudio — 混合精度工作台</translation>
    </message>
</context>
<context>
    <name>PinOffer</name>
    <message>
        <source>Rebuild the model with this layer computing in float32 (the others stay in half precision) from the same initial weights, and train again</source>
        <translation>以相同的初始权重重新构建模型，让此层以 float32 计算（其他层仍为半精度），然后重新训练</translation>
    </message>
    <message>
        <source>Keep {layer} in float32 and run again</source>
        <translation>将 {layer} 保持为 float32 并重新运行</translation>
    </message>
</context>
<context>
    <name>PinnedLayers</name>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Layer names, separated by commas, that compute in float32 while the rest of the model uses the mixed policy: the fix for a layer whose values overflow float16 (the Model table lists the names)</source>
        <translation>以逗号分隔的层名称：这些层以 float32 计算，模型其余部分使用混合精度策略。用于修复数值超出 float16 范围（溢出）的层（模型表格列出了层名称）</translation>
    </message>
    <message>
        <source>Layers kept in float32</source>
        <translation>保持 float32 的层</translation>
    </message>
</context>
<context>
    <name>RunActions</name>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>Cannot start: {problems}</source>
        <translation>无法开始：{problems}</translation>
    </message>
    <message>
        <source>cannot start: {problems}</source>
        <translation>无法开始：{problems}</translation>
    </message>
    <message>
        <source>loading the data…</source>
        <translation>正在加载数据…</translation>
    </message>
    <message>
        <source>stop now: ending the engine process; what the run measured is kept</source>
        <translation>立即停止：正在结束引擎进程；保留该运行已测得的结果</translation>
    </message>
    <message>
        <source>ending the engine process…</source>
        <translation>正在结束引擎进程…</translation>
    </message>
    <message>
        <source>stop requested before the first step: ending the run now and starting a fresh engine process</source>
        <translation>在第一步之前请求了停止：立即结束运行，并启动一个新的引擎进程</translation>
    </message>
    <message>
        <source>stopping before the next batch…</source>
        <translation>将在下一个批次之前停止…</translation>
    </message>
    <message>
        <source>stop requested: the run ends before its next batch</source>
        <translation>已请求停止：运行将在下一个批次之前结束</translation>
    </message>
    <message>
        <source>device: {device}</source>
        <translation>设备：{device}</translation>
    </message>
    <message>
        <source>The run could not start: {reason}</source>
        <translation>运行无法开始：{reason}</translation>
    </message>
    <message>
        <source>the run could not start</source>
        <translation>运行无法开始</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>the engine process ended</source>
        <translation>引擎进程已结束</translation>
    </message>
    <message>
        <source>Details in the engine&apos;s log: {log}</source>
        <translation>详情见引擎日志：{log}</translation>
    </message>
</context>
<context>
    <name>RunController</name>
    <message>
        <source>a run is already in progress: stop it first</source>
        <translation>已有运行正在进行：请先停止它</translation>
    </message>
    <message>
        <source>the {precision} run</source>
        <translation>{precision} 运行</translation>
    </message>
    <message>
        <source>stopped before the first step: nothing had trained yet, so the run ended at once; the History lists it as stopped</source>
        <translation>在第一步之前停止：尚未训练任何内容，因此运行已立即结束；历史记录中将其列为“已停止”</translation>
    </message>
    <message>
        <source>stopped now: the engine process was ended; the run is kept as stopped with what it measured</source>
        <translation>已立即停止：引擎进程已被结束；该运行以“已停止”保留，并保存已测得的结果</translation>
    </message>
    <message>
        <source>{reason}. The run is marked failed in the history with its metrics up to then; a fresh engine is starting and your setup is unchanged.</source>
        <translation>{reason}。该运行在历史记录中标记为失败，并保留到那时为止的指标；新的引擎正在启动，你的设置保持不变。</translation>
    </message>
    <message>
        <source>stopped before the run started</source>
        <translation>在运行开始前已停止</translation>
    </message>
</context>
<context>
    <name>RunOutcome</name>
    <message>
        <source>Verdict: </source>
        <translation>结论：</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>diverged</source>
        <translation>发散</translation>
    </message>
    <message>
        <source>stopped before the data had loaded</source>
        <translation>在数据加载完成前已停止</translation>
    </message>
    <message>
        <source>{count} runs ({statuses}); the Comparison card has the medians, the Log each run</source>
        <translation>{count} 次运行（{statuses}）；“对比”卡片给出中位数，“日志”记录每次运行</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>The run diverged: {reason}</source>
        <translation>运行发散：{reason}</translation>
    </message>
    <message>
        <source>The run failed: {reason}</source>
        <translation>运行失败：{reason}</translation>
    </message>
    <message>
        <source>Comparison stopped: {headline}. The Comparison card says why.</source>
        <translation>对比已停止：{headline}。原因见“对比”卡片。</translation>
    </message>
    <message>
        <source>Comparison finished: {headline}. The Comparison card says why.</source>
        <translation>对比已完成：{headline}。原因见“对比”卡片。</translation>
    </message>
    <message>
        <source>starting {precision} on {dataset} / {template}</source>
        <translation>开始训练：{precision}，{dataset} / {template}</translation>
    </message>
    <message>
        <source>with the {strategy} strategy</source>
        <translation>使用 {strategy} 策略</translation>
    </message>
    <message>
        <source>compared with float32, {trials} trials each</source>
        <translation>与 float32 对比，每侧 {trials} 次试验</translation>
    </message>
    <message>
        <source>compared with float32</source>
        <translation>与 float32 对比</translation>
    </message>
    <message>
        <source>{line} {clause}</source>
        <translation>{line}，{clause}</translation>
    </message>
</context>
<context>
    <name>ServerFileDialog</name>
    <message>
        <source>{title} on {host}</source>
        <translation>{title}（在 {host} 上）</translation>
    </message>
    <message>
        <source>a folder on {host}, e.g. ~/data</source>
        <translation>{host} 上的文件夹，例如 ~/data</translation>
    </message>
    <message>
        <source>&amp;Up</source>
        <translation>向上(&amp;U)</translation>
    </message>
    <message>
        <source>The folder this one is in</source>
        <translation>上一级文件夹</translation>
    </message>
    <message>
        <source>&amp;Home</source>
        <translation>主目录(&amp;H)</translation>
    </message>
    <message>
        <source>Your home folder on {host}</source>
        <translation>你在 {host} 上的主目录</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>listing…</source>
        <translation>正在列出…</translation>
    </message>
    <message>
        <source>Folders only.</source>
        <translation>只显示文件夹。</translation>
    </message>
    <message>
        <source>Folders and {suffixes} files.</source>
        <translation>文件夹和 {suffixes} 文件。</translation>
    </message>
    <message>
        <source>Nothing here to open.</source>
        <translation>这里没有可打开的内容。</translation>
    </message>
    <message>
        <source>Only the first {count} are listed: type a path to go further.</source>
        <translation>只列出了前 {count} 项：请输入路径以继续浏览。</translation>
    </message>
</context>
<context>
    <name>SetupPanel</name>
    <message>
        <source>auto (on for GPUs)</source>
        <translation>自动（GPU 上开启）</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Keras fit()</source>
        <translation>Keras fit()</translation>
    </message>
    <message>
        <source>custom tf.function loop</source>
        <translation>自定义 tf.function 循环</translation>
    </message>
    <message>
        <source>Runs float32 first, then the mixed run from the same initial weights and data order, so the charts and the comparison card compare like with like</source>
        <translation>先运行 float32，再用相同的初始权重和数据顺序运行混合精度，使图表和对比卡片的比较条件一致</translation>
    </message>
    <message>
        <source>Each side runs this many times, alternating (float32, mixed, float32, …); the card shows the median speed and its range</source>
        <translation>每一方运行这么多次，交替进行（float32、混合精度、float32、…）；卡片显示速度的中位数及其范围</translation>
    </message>
    <message>
        <source>TensorFlow default (TF32 on Ampere+)</source>
        <translation>TensorFlow 默认（Ampere 及更新架构上为 TF32）</translation>
    </message>
    <message>
        <source>strict float32 (TF32 off)</source>
        <translation>严格 float32（关闭 TF32）</translation>
    </message>
    <message>
        <source>What the float32 side computes in. On Ampere and newer GPUs TensorFlow runs float32 matmuls and convolutions as TF32 by default, which shrinks the visible gain; strict float32 turns TF32 off for the baseline. Other devices compute float32 either way, and the card says which it was.</source>
        <translation>float32 一方的计算方式。在 Ampere 及更新的 GPU 上，TensorFlow 默认以 TF32 运行 float32 矩阵乘法和卷积，这会缩小可见的加速；严格 float32 会为基线关闭 TF32。其他设备无论如何都以 float32 计算，卡片会说明实际情况。</translation>
    </message>
    <message>
        <source>Trace a few steady steps of each side with TensorFlow&apos;s profiler: time per op type for float32 and mixed side by side, the casts mixed precision added and the share of a step spent waiting for input. The card then names the ops that made mixed precision slower.</source>
        <translation>用 TensorFlow 的性能分析器跟踪每一方的几个稳定步：float32 与混合精度并排的每类算子耗时、混合精度新增的类型转换，以及一步中等待输入的占比。卡片随后会指出使混合精度变慢的算子。</translation>
    </message>
    <message>
        <source>A speed verdict needs a few seconds of steady training on each side. Where the epochs set here would be too short to time, mpstudio trains more steps (by the step time it predicts for this device), and on a GPU the batch it predicts the GPU needs to show a gain. The card says what it changed. Untick to train exactly as set.</source>
        <translation>速度结论需要每侧几秒的稳态训练。当这里设定的轮数太短而无法计时时，mpstudio 会训练更多步（按它为此设备预测的每步时间），在 GPU 上还会使用预测该 GPU 显示收益所需的批大小。对比卡片会说明它改了什么。取消勾选即按设定训练。</translation>
    </message>
    <message>
        <source>Mixed precision halves activation memory, so a larger batch often fits; the linear scaling rule (Goyal et al. 2017) keeps the per-example step size: scale the learning rate with the batch, and use a warmup for large factors</source>
        <translation>混合精度使激活值内存减半，因此通常能容纳更大的批次；线性缩放规则 (Goyal et al. 2017) 保持每个样本的步长：学习率随批次大小等比缩放，倍数较大时使用预热</translation>
    </message>
    <message>
        <source>a multi-worker comparison runs from the command line: mpstudio compare --strategy multiworker on every host</source>
        <translation>多机对比运行需在命令行中进行：在每台主机上运行 `mpstudio compare --strategy multiworker`</translation>
    </message>
    <message>
        <source>Examples per step, per replica (per device)</source>
        <translation>每步的样本数，按每副本（每个设备）计</translation>
    </message>
    <message>
        <source>Compare with float32</source>
        <translation>与 float32 对比</translation>
    </message>
    <message>
        <source>Profile ops (why slower?)</source>
        <translation>分析算子（为什么变慢？）</translation>
    </message>
    <message>
        <source>Size for timing</source>
        <translation>自动调整以便计时</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批次大小</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Loop</source>
        <translation>训练循环</translation>
    </message>
    <message>
        <source>Trials</source>
        <translation>试验次数</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Loss scaling</source>
        <translation>损失缩放</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Distribution</source>
        <translation>分布式训练</translation>
    </message>
    <message>
        <source>Training aids</source>
        <translation>训练辅助</translation>
    </message>
    <message>
        <source>Use {rate} for batch {batch} (linear rule)</source>
        <translation>批次 {batch} 使用 {rate}（线性规则）</translation>
    </message>
    <message>
        <source> This is a large factor: set warmup steps under Distribution.</source>
        <translation>这个倍数较大：请在“分布式训练”中设置预热步数。</translation>
    </message>
    <message>
        <source>{tip}. The learning rate {rate} was set for batch {old}; batch {batch} is ×{factor}.{warm}</source>
        <translation>{tip}。学习率 {rate} 是按批次 {old} 设定的；批次 {batch} 是其 ×{factor}。{warm}</translation>
    </message>
    <message>
        <source>The run already is float32: pick a mixed precision to compare with it</source>
        <translation>本次运行已是 float32：请选择一种混合精度来与之对比</translation>
    </message>
    <message>
        <source>Compare with mixed_bfloat16</source>
        <translation>与 mixed_bfloat16 对比</translation>
    </message>
    <message>
        <source>float8 is compared with mixed_bfloat16, whose matmuls TF32 does not touch</source>
        <translation>float8 与 mixed_bfloat16 对比，TF32 不影响其矩阵乘法</translation>
    </message>
    <message>
        <source>TensorFlow is still loading…</source>
        <translation>TensorFlow 仍在加载…</translation>
    </message>
    <message>
        <source>Stop now</source>
        <translation>立即停止</translation>
    </message>
    <message>
        <source>End the engine process now: the run is kept as stopped with what it measured</source>
        <translation>立即结束引擎进程：本次运行以“已停止”保留，连同已测得的数据</translation>
    </message>
    <message>
        <source>Stop before the next batch</source>
        <translation>在下一个批次之前停止</translation>
    </message>
    <message>
        <source>&lt;b&gt;{mark} on {device}&lt;/b&gt;: {reason}</source>
        <translation>&lt;b&gt;在 {device} 上{mark}&lt;/b&gt;：{reason}</translation>
    </message>
    <message>
        <source>The hardware check marks each precision with what it means on this machine.</source>
        <translation>硬件检测会标出每种精度在本机上的含义。</translation>
    </message>
</context>
<context>
    <name>SetupPreview</name>
    <message>
        <source>{description}
{availability} (with progress, when you click Run)</source>
        <translation>{description}
{availability}（点击“运行”时进行，并显示进度）</translation>
    </message>
    <message>
        <source>reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>reading {dataset}</source>
        <translation>读取 {dataset}</translation>
    </message>
    <message>
        <source>No preview: the data could not be read.</source>
        <translation>无预览：无法读取数据。</translation>
    </message>
    <message>
        <source>The layer table appears when TensorFlow has loaded.</source>
        <translation>TensorFlow 加载完成后将显示层表。</translation>
    </message>
    <message>
        <source>The layer table appears once the data has been read.</source>
        <translation>数据读取完成后将显示层表。</translation>
    </message>
    <message>
        <source>building {template}</source>
        <translation>构建 {template}</translation>
    </message>
    <message>
        <source>No preview: {reason}</source>
        <translation>无预览：{reason}</translation>
    </message>
</context>
<context>
    <name>TemplatePicker</name>
    <message>
        <source>Open .&amp;keras…</source>
        <translation>打开 .&amp;keras…</translation>
    </message>
    <message>
        <source>Train your own model saved with `model.save(&quot;name.keras&quot;)`: its layers and weights under the precision chosen, its last layer in float32 (also `--template name.keras`)</source>
        <translation>训练你用 `model.save(&quot;name.keras&quot;)` 保存的模型：保留其层与权重，按所选精度计算，最后一层为 float32（也可用 `--template name.keras`）</translation>
    </message>
    <message>
        <source>Open a Keras model</source>
        <translation>打开 Keras 模型</translation>
    </message>
    <message>
        <source>Keras model (*{suffix})</source>
        <translation>Keras 模型 (*{suffix})</translation>
    </message>
</context>
<context>
    <name>TensorBoardActions</name>
    <message>
        <source>Open in TensorBoard</source>
        <translation>在 TensorBoard 中打开</translation>
    </message>
    <message>
        <source>There is no run to show: select one in History, or train one.</source>
        <translation>没有可显示的运行：请在“历史记录”中选择一个，或训练一个。</translation>
    </message>
    <message>
        <source>TensorBoard is not installed here. Install it with:

    {command}

then choose Run &gt; Open in TensorBoard again.</source>
        <translation>本机未安装 TensorBoard。请用以下命令安装：

    `{command}`

然后再次选择“运行 &gt; 在 TensorBoard 中打开”。</translation>
    </message>
    <message>
        <source>Run #{id} has no TensorBoard logs. To get them, turn on &apos;Write TensorBoard logs&apos; (or --tensorboard) and run it again.</source>
        <translation>运行 #{id} 没有 TensorBoard 日志。要得到日志，请打开“写入 TensorBoard 日志”（或 `--tensorboard`）并重新运行。</translation>
    </message>
    <message>
        <source>None of the selected runs has TensorBoard logs. To get them, turn on &apos;Write TensorBoard logs&apos; (or --tensorboard) and run it again.</source>
        <translation>所选运行都没有 TensorBoard 日志。要得到日志，请打开“写入 TensorBoard 日志”（或 `--tensorboard`）并重新运行。</translation>
    </message>
    <message>
        <source>starting TensorBoard on {host}…</source>
        <translation>正在 {host} 上启动 TensorBoard…</translation>
    </message>
    <message>
        <source>starting TensorBoard…</source>
        <translation>正在启动 TensorBoard…</translation>
    </message>
    <message>
        <source>starting TensorBoard… (logs: {folders})</source>
        <translation>正在启动 TensorBoard…（日志：{folders}）</translation>
    </message>
    <message>
        <source>TensorBoard could not start</source>
        <translation>TensorBoard 无法启动</translation>
    </message>
    <message>
        <source>TensorBoard could not start: {reason}</source>
        <translation>TensorBoard 无法启动：{reason}</translation>
    </message>
    <message>
        <source>TensorBoard of {host} at {url}, forwarded over ssh (logs there: {folders})</source>
        <translation>{host} 的 TensorBoard 位于 {url}，经 ssh 转发（那里的日志：{folders}）</translation>
    </message>
    <message>
        <source>TensorBoard at {url} (logs: {folders})</source>
        <translation>TensorBoard 地址：{url}（日志：{folders}）</translation>
    </message>
</context>
<context>
    <name>Translations</name>
    <message>
        <source>No font with Chinese characters is installed, so Chinese text shows as boxes. Install one (Debian/Ubuntu: `sudo apt install fonts-noto-cjk`; Fedora: `sudo dnf install google-noto-sans-cjk-fonts`; macOS and Windows have one) and start mpstudio again, or choose View &gt; Language &gt; English.</source>
        <translation>未安装含中文字符的字体，中文文字会显示为方框。请安装一种（Debian/Ubuntu：`sudo apt install fonts-noto-cjk`；Fedora：`sudo dnf install google-noto-sans-cjk-fonts`；macOS 和 Windows 已自带），然后重新启动 mpstudio，或选择“视图 &gt; 语言 &gt; English”。</translation>
    </message>
</context>
<context>
    <name>UncaughtErrors</name>
    <message>
        <source>mpstudio: unexpected error</source>
        <translation>mpstudio：意外错误</translation>
    </message>
    <message>
        <source>Something went wrong inside mpstudio: {error}</source>
        <translation>mpstudio 内部出错：{error}</translation>
    </message>
    <message>
        <source>Open log folder</source>
        <translation>打开日志文件夹</translation>
    </message>
    <message>
        <source>The window could not open: {error}</source>
        <translation>窗口无法打开：{error}</translation>
    </message>
    <message>
        <source>No log file could be written, so its details went to the terminal that started mpstudio (if any).</source>
        <translation>无法写入日志文件，因此详情输出到了启动 mpstudio 的终端（如果有）。</translation>
    </message>
    <message>
        <source>Its details are in the log: {log}</source>
        <translation>详情见日志：{log}</translation>
    </message>
    <message>
        <source>mpstudio goes on, but what you were doing may not have finished.</source>
        <translation>mpstudio 会继续运行，但你刚才进行的操作可能没有完成。</translation>
    </message>
    <message>
        <source>Sending the log with a bug report helps fix it.</source>
        <translation>提交错误报告时附上日志，有助于修复问题。</translation>
    </message>
    <message>
        <source>Errors since then, in the log too: {count}</source>
        <translation>此后又出现的错误（也已记入日志）：{count}</translation>
    </message>
</context>
<context>
    <name>UnderflowChart</name>
    <message>
        <source>% of the nonzero gradient values float16 rounds to 0</source>
        <translation>非零梯度值中被 float16 舍入为 0 的百分比</translation>
    </message>
    <message>
        <source>Latest sample</source>
        <translation>最新采样</translation>
    </message>
    <message>
        <source>· {label}, step {step}</source>
        <translation>· {label}，第 {step} 步</translation>
    </message>
    <message>
        <source>without loss scaling / at scale {scale}</source>
        <translation>无损失缩放 / 缩放因子 {scale} 下</translation>
    </message>
    <message>
        <source>all layers: {unscaled} / {scaled}</source>
        <translation>所有层：{unscaled} / {scaled}</translation>
    </message>
    <message>
        <source>worst layers:</source>
        <translation>下溢最多的层：</translation>
    </message>
</context>
<context>
    <name>VerdictMarks</name>
    <message>
        <source>recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>works, no faster</source>
        <translation>可用，但不更快</translation>
    </message>
    <message>
        <source>works but slower</source>
        <translation>可用但更慢</translation>
    </message>
    <message>
        <source>measure to know</source>
        <translation>需测量才知道</translation>
    </message>
    <message>
        <source>not supported</source>
        <translation>不支持</translation>
    </message>
</context>
<context>
    <name>ViewBox</name>
    <message>
        <source>ViewBox options</source>
        <translation>视图选项</translation>
    </message>
    <message>
        <source>View All</source>
        <translation>显示全部</translation>
    </message>
    <message>
        <source>axis</source>
        <translation>轴</translation>
    </message>
    <message>
        <source>Mouse Mode</source>
        <translation>鼠标模式</translation>
    </message>
    <message>
        <source>3 button</source>
        <translation>三键（平移）</translation>
    </message>
    <message>
        <source>1 button</source>
        <translation>单键（框选缩放）</translation>
    </message>
</context>
<context>
    <name>ViewMenu</name>
    <message>
        <source>&amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Show or hide the {panel} panel</source>
        <translation>显示或隐藏“{panel}”面板</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>The new language takes effect the next time mpstudio starts.</source>
        <translation>新的语言将在下次启动 mpstudio 时生效。</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <source>Stop &amp;now</source>
        <translation>立即停止(&amp;N)</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Import dataset…</source>
        <translation>导入数据集(&amp;I)…</translation>
    </message>
    <message>
        <source>Train on an .npz or .csv file or a folder of images</source>
        <translation>用 .npz 或 .csv 文件或者图像文件夹进行训练</translation>
    </message>
    <message>
        <source>&amp;Open run config…</source>
        <translation>打开运行配置(&amp;O)…</translation>
    </message>
    <message>
        <source>Load a run spec saved as TOML (also `mpstudio train --config`)</source>
        <translation>加载保存为 TOML 的运行配置（命令行：`mpstudio train --config`）</translation>
    </message>
    <message>
        <source>&amp;Save run config…</source>
        <translation>保存运行配置(&amp;S)…</translation>
    </message>
    <message>
        <source>Save this setup as a TOML run spec</source>
        <translation>把当前设置保存为 TOML 运行配置</translation>
    </message>
    <message>
        <source>&amp;Export model…</source>
        <translation>导出模型(&amp;E)…</translation>
    </message>
    <message>
        <source>Save the model the last run trained</source>
        <translation>保存上一次运行训练出的模型</translation>
    </message>
    <message>
        <source>Export &amp;report…</source>
        <translation>导出报告(&amp;R)…</translation>
    </message>
    <message>
        <source>Save the comparison card, verdict and charts as an HTML page, and the metrics as CSV</source>
        <translation>把对比卡片、结论和图表保存为 HTML 页面，并把指标保存为 CSV</translation>
    </message>
    <message>
        <source>Save &amp;charts…</source>
        <translation>保存图表(&amp;C)…</translation>
    </message>
    <message>
        <source>Save the charts as PNG or SVG</source>
        <translation>把图表保存为 PNG 或 SVG</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>Train with this setup</source>
        <translation>按当前设置开始训练</translation>
    </message>
    <message>
        <source>Stop the run before its next batch (then, if it goes on, Stop now)</source>
        <translation>在下一个批次之前停止运行（若仍未停止，再用“立即停止”）</translation>
    </message>
    <message>
        <source>&amp;Hardware check</source>
        <translation>硬件检测(&amp;H)</translation>
    </message>
    <message>
        <source>Detect the devices and what each precision does on them</source>
        <translation>检测设备，以及每种精度在这些设备上的表现</translation>
    </message>
    <message>
        <source>&amp;Measure precisions</source>
        <translation>各精度测速(&amp;M)</translation>
    </message>
    <message>
        <source>Time float32, float16 and bfloat16 kernels on this machine</source>
        <translation>在本机上为 float32、float16 和 bfloat16 的计算内核计时</translation>
    </message>
    <message>
        <source>Chec&amp;k training on this machine…</source>
        <translation>检查本机上的训练(&amp;K)…</translation>
    </message>
    <message>
        <source>A few real training steps per template and precision, the build, driver, TF32 and timing, as a pass/warn/fail report (also `mpstudio doctor`)</source>
        <translation>每个模型模板和精度各做几步真实训练，并检查构建、驱动、TF32 和计时，给出通过/警告/失败报告（命令行：`mpstudio doctor`）</translation>
    </message>
    <message>
        <source>&amp;Find the largest batch…</source>
        <translation>查找最大批次(&amp;F)…</translation>
    </message>
    <message>
        <source>The largest batch float32 and mixed precision each train at without running out of memory, then compare them there (also `mpstudio find-batch`)</source>
        <translation>float32 与混合精度各自在不耗尽内存时能训练的最大批次，然后在这两个批次下对比（也可用 `mpstudio find-batch`）</translation>
    </message>
    <message>
        <source>Open in Tensor&amp;Board</source>
        <translation>在 TensorBoard 中打开(&amp;B)</translation>
    </message>
    <message>
        <source>Show the TensorBoard logs of the run selected in History (or the last run) in the browser</source>
        <translation>在浏览器中显示“历史记录”中所选运行（或上一次运行）的 TensorBoard 日志</translation>
    </message>
    <message>
        <source>What &amp;mixed precision does</source>
        <translation>混合精度的作用(&amp;M)</translation>
    </message>
    <message>
        <source>Open &amp;log folder</source>
        <translation>打开日志文件夹(&amp;L)</translation>
    </message>
    <message>
        <source>Show the folder of mpstudio&apos;s log files (window, engine and command line): what to attach to a bug report</source>
        <translation>显示 mpstudio 日志文件（窗口、引擎和命令行）所在的文件夹：提交错误报告时请附上这些文件</translation>
    </message>
    <message>
        <source>&amp;About mpstudio</source>
        <translation>关于 mpstudio(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
</TS>
