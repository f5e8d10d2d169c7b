# A tiny training script to run on the rented GPU (the demo never runs it locally).
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Linear(10, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(64, 10, device=device)
    loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
print(f"{device}: final loss {loss.item():.4f}")
